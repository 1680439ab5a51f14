// Writing an export to its directory: the generated files (replaced on every export) and the control
// token, created once (random, 0600) and kept by later exports, so that devices already deployed with it
// still accept the controller. Every file goes through safe-files.ts (never through a planted link); the
// directory carries a .gitignore that keeps the token out of any repository it ends up in.

import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import { type OutputDir, PRIVATE_FILE_MODE } from "../runtime/realtime/safe-files.js";
import type { ExportFile } from "./containerlab.js";
import { ExportInputError } from "./placement.js";

/** Where the token lives in an export directory (relative), and its form: 64 hex digits. */
export const TOKEN_FILE = "config/token";
const TOKEN = /^[0-9a-f]{64}\n?$/;
/** Mode of the generated files: no secret in them, and container runtimes that are not root read them. */
export const EXPORT_FILE_MODE = 0o644;
/** The export's .gitignore: whatever repository the directory is put in, the token stays out of it. */
export const GITIGNORE =
  "# Written by `rocelab export`: the control token is a secret (docs/reliability.md).\n/config/token\n";

/**
 * Where an export goes when no --output is given: under the user's data directory (XDG_DATA_HOME, else
 * ~/.local/share), never the working directory, which is often a checkout the token could be committed from.
 */
export function defaultExportDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME?.startsWith("/") ? env.XDG_DATA_HOME : join(homedir(), ".local", "share");
  return join(data, "rocelab", "exports", name);
}

/** The export's token: the one already in `dir`, else a new one written there (0600). */
export function ensureToken(dir: OutputDir): string {
  const text = dir.read(TOKEN_FILE);
  if (text !== null) {
    if (!TOKEN.test(text))
      throw new ExportInputError(
        `${dir.file(TOKEN_FILE)} is not a token this export wrote (64 hex digits): remove it`,
      );
    return text.trim();
  }
  const token = randomBytes(32).toString("hex");
  dir.write(TOKEN_FILE, `${token}\n`, PRIVATE_FILE_MODE);
  dir.write(".gitignore", GITIGNORE, EXPORT_FILE_MODE);
  return token;
}

/** Writes every file under `dir` (subdirectories created as needed); returns their paths, relative. */
export function writeExport(dir: OutputDir, files: readonly ExportFile[]): string[] {
  for (const f of files) dir.write(f.path, f.content, EXPORT_FILE_MODE);
  dir.write(".gitignore", GITIGNORE, EXPORT_FILE_MODE);
  return files.map((f) => f.path);
}

/**
 * Removes files an earlier export of lab `lab` left in `dir` that this one did not write: topology files
 * of machines no longer named, device files of nodes no longer in the topology (so that nobody deploys a
 * stale part). Only names exports write are touched. Returns the removed paths, relative.
 */
export function removeStale(dir: OutputDir, lab: string, written: readonly string[]): string[] {
  const keep = new Set(written);
  const ours = [
    { sub: "", pattern: new RegExp(`^${lab}(\\.[a-z][a-z0-9-]*)?\\.clab\\.yml$`) },
    { sub: "config", pattern: /^[A-Za-z][\w-]*\.json$/ },
  ];
  const removed: string[] = [];
  for (const { sub, pattern } of ours) {
    if (sub !== "" && !dir.has(sub)) continue;
    const at = sub === "" ? dir : dir.dir(sub);
    try {
      for (const name of at.entries()) {
        const rel = sub === "" ? name : `${sub}/${name}`;
        if (!pattern.test(name) || keep.has(rel)) continue;
        at.remove(name);
        removed.push(rel);
      }
    } finally {
      if (at !== dir) at.close();
    }
  }
  return removed;
}
