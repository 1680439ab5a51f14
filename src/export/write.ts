// Writing an export to its directory: the generated files (replaced on every export) and the control
// token, created once (random, 0600) and kept by later exports, so that devices already deployed with it
// still accept the controller.

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExportFile } from "./containerlab.js";
import { ExportInputError } from "./placement.js";

/** Where the token lives in an export directory (relative), and its form: 64 hex digits. */
export const TOKEN_FILE = "config/token";
const TOKEN = /^[0-9a-f]{64}\n?$/;

/** The export's token: the one already in `dir`, else a new one written there. */
export function ensureToken(dir: string): string {
  const path = join(dir, TOKEN_FILE);
  if (existsSync(path)) {
    const text = readFileSync(path, "utf8");
    if (!TOKEN.test(text))
      throw new ExportInputError(`${path} is not a token this export wrote (64 hex digits): remove it`);
    return text.trim();
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const token = randomBytes(32).toString("hex");
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

/** Writes every file under `dir` (directories created as needed); returns their paths, relative. */
export function writeExport(dir: string, files: readonly ExportFile[]): string[] {
  for (const f of files) {
    const path = join(dir, f.path);
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    writeFileSync(path, f.content, { mode: 0o644 });
  }
  return files.map((f) => f.path);
}

/**
 * Removes files an earlier export of lab `lab` left in `dir` that this one did not write: topology files
 * of machines no longer named, device files of nodes no longer in the topology (so that nobody deploys a
 * stale part). Only names exports write are touched. Returns the removed paths, relative.
 */
export function removeStale(dir: string, lab: string, written: readonly string[]): string[] {
  const keep = new Set(written);
  const ours = [
    { sub: "", pattern: new RegExp(`^${lab}(\\.[a-z][a-z0-9-]*)?\\.clab\\.yml$`) },
    { sub: "config", pattern: /^[A-Za-z][\w-]*\.json$/ },
  ];
  const removed: string[] = [];
  for (const { sub, pattern } of ours) {
    const at = join(dir, sub);
    if (!existsSync(at)) continue;
    for (const name of readdirSync(at)) {
      const rel = sub === "" ? name : `${sub}/${name}`;
      if (!pattern.test(name) || keep.has(rel)) continue;
      rmSync(join(dir, rel));
      removed.push(rel);
    }
  }
  return removed;
}
