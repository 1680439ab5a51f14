// Loads the test suite's TypeScript with esbuild (already the bundler's dependency) instead of tap's default
// ts-node: `node --import ./scripts/test-loader/register.mjs`. Type-checking is `npm run check`'s job; this
// only strips types. Output keeps one generated line per source line (no minification) and an inline
// source map, so V8 coverage maps back to the .ts files statement by statement.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
