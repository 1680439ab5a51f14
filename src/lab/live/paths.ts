// Where the compiled entry points of live processes are. Lab processes always run compiled JavaScript
// (a TypeScript loader per process would make `up` slow), also when the command that starts them runs
// from source (tests do): the bundled entry points in dist/bundle/ (scripts/bundle.mjs), one file and a
// few shared chunks each instead of ~500 modules, which is most of a process's start-up.

import { join } from "node:path";
import { projectRoot } from "../../runtime/live/project-root.js";

/** A file of the compiled tree, e.g. distPath("bench/frame-generator.js"). */
export function distPath(relative: string): string {
  return join(projectRoot(), "dist", relative);
}

/**
 * A bundled entry point, e.g. entryPath("runtime/live/device-main.js"): the same relative path under
 * dist/bundle/. scripts/bundle.mjs lists the entry points it builds.
 */
export function entryPath(relative: string): string {
  return join(projectRoot(), "dist", "bundle", relative);
}
