// Module hooks for the test loader (see register.mjs): `.js` specifiers that name a `.ts`/`.tsx` source
// resolve to it (NodeNext style imports), and TypeScript sources are transformed by esbuild.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";

const TS = /\.(?:ts|tsx|mts)$/;

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:");
    if (!relative || !/\.(?:js|mjs|jsx)$/.test(specifier)) throw error;
    for (const ext of [".ts", ".tsx"]) {
      const candidate = specifier.replace(/\.(?:js|mjs|jsx)$/, specifier.endsWith(".mjs") ? ".mts" : ext);
      try {
        return await next(candidate, context);
      } catch {
        // try the next extension
      }
    }
    throw error;
  }
}

export async function load(url, context, next) {
  if (!url.startsWith("file:") || !TS.test(url)) return next(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, "utf8");
  const result = await transform(source, {
    loader: path.endsWith(".tsx") ? "tsx" : "ts",
    format: "esm",
    target: "node20",
    jsx: "automatic",
    sourcemap: "inline",
    sourcefile: path,
    sourcesContent: true,
    // As tsconfig.json: imports without `type` stay, as tsc emits them.
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  return { format: "module", source: result.code, shortCircuit: true };
}
