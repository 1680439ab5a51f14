// The rocelab checkout this code runs from: the nearest directory above this module that holds
// package.json. The same answer from src/ (tests), dist/ (the compiled tree) and dist/bundle/ (the
// bundled entry points, whose chunks sit at another depth), so nothing counts "../" levels.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | null = null;

export function projectRoot(): string {
  if (root !== null) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the rocelab project root (package.json)");
    dir = up;
  }
  root = dir;
  return dir;
}
