// Files rocelab writes, safe to write as root in directories other users can write to (/tmp, a shared
// checkout). Nothing here follows a link someone planted where an output goes:
//   - an output directory is opened once (O_DIRECTORY|O_NOFOLLOW) and every file is created relative to
//     that handle, through /proc/self/fd/N (Linux's openat(2) for Node, which has none): replacing the
//     directory, or a directory on its path, by a link afterwards changes nothing;
//   - a file is created new (O_CREAT|O_EXCL|O_NOFOLLOW: an existing name, a link included, is an error),
//     or written to a fresh temporary name in the same directory and renamed over the old one (rename(2)
//     replaces a link, it never writes through it);
//   - files are 0600 and directories 0700 unless the caller asks otherwise;
//   - an existing output directory must be empty unless the user passed --force (`force`).
// The threat model is docs/reliability.md's "Security model".

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** Mode of the files rocelab writes unless asked otherwise: its user's only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of the directories it creates. */
export const PRIVATE_DIR_MODE = 0o700;

const { O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** An output that would not be safe, or not what the user meant: a user-facing refusal. */
export class UnsafeOutputError extends Error {
  override readonly name = "UnsafeOutputError";
}

export interface OutputOptions {
  /** The user passed --force: an existing non-empty directory, or an existing file, is replaced. */
  readonly force?: boolean;
  /** Mode of the files written (default PRIVATE_FILE_MODE). */
  readonly mode?: number;
  /** The option that named the path, for messages (e.g. "--out"). */
  readonly flag?: string;
}

function named(path: string, flag: string | undefined): string {
  return flag ? `${flag} ${path}` : path;
}

function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** A single path component, or a refusal (the names come from code and topologies, never from ..). */
function component(name: string): string {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0"))
    throw new UnsafeOutputError(`"${name}" is not a file name (no /, no . or ..)`);
  return name;
}

/** Opens the directory `name` of `dirFd` (or the path `name` when dirFd is null), never through a link. */
function openDir(dirFd: number | null, name: string, shown: string): number {
  try {
    return openSync(dirFd === null ? name : fdPath(dirFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") {
      const link = isLink(dirFd === null ? name : fdPath(dirFd, name));
      throw new UnsafeOutputError(
        link
          ? `${shown} is a symbolic link: rocelab does not write through links (remove it, or name the directory it points to)`
          : `${shown} is not a directory`,
      );
    }
    throw new UnsafeOutputError(`cannot open ${shown}: ${(e as Error).message}`);
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Writes `data` to a new file `name` in `dirFd`: temporary name, then rename over `name`. */
function replaceIn(
  dirFd: number,
  name: string,
  data: string | Uint8Array,
  mode: number,
  shown: string,
): void {
  const tmp = `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  let fd: number;
  try {
    fd = openSync(fdPath(dirFd, tmp), CREATE_NEW, mode);
  } catch (e) {
    throw new UnsafeOutputError(`cannot create ${shown}: ${(e as Error).message}`);
  }
  try {
    fchmodSync(fd, mode);
    writeFileSync(fd, data);
  } catch (e) {
    closeSync(fd);
    unlinkSync(fdPath(dirFd, tmp));
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(fdPath(dirFd, tmp), fdPath(dirFd, name));
  } catch (e) {
    unlinkSync(fdPath(dirFd, tmp));
    throw new UnsafeOutputError(`cannot write ${shown}: ${(e as Error).message}`);
  }
}

/** Creates `name` in `dirFd` new (never an existing name, never through a link); `force` removes one first. */
function createIn(dirFd: number, name: string, mode: number, force: boolean, shown: string): number {
  if (force) {
    try {
      // unlink(2) removes a link itself, never what it points to.
      if (!lstatSync(fdPath(dirFd, name)).isDirectory()) unlinkSync(fdPath(dirFd, name));
    } catch {}
  }
  try {
    const fd = openSync(fdPath(dirFd, name), CREATE_NEW, mode);
    fchmodSync(fd, mode);
    return fd;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new UnsafeOutputError(
        isLink(fdPath(dirFd, name))
          ? `${shown} is a symbolic link: rocelab does not write through links (remove it)`
          : `${shown} exists: choose another name, remove it, or pass --force to replace it`,
      );
    throw new UnsafeOutputError(`cannot create ${shown}: ${(e as Error).message}`);
  }
}

/**
 * A directory rocelab writes into, held open: every file goes into the directory that was checked, even if
 * the path is changed afterwards. Close it when done (or let the process end).
 */
export class OutputDir {
  private closed = false;

  private constructor(
    /** The path as the user named it (absolute), for messages. */
    readonly path: string,
    private readonly fd: number,
    private readonly opts: OutputOptions,
  ) {}

  /**
   * The output directory `path`: created (0700, parents as needed) if missing; an existing one must be a
   * directory, not a link, and empty unless `force`.
   */
  static create(path: string, opts: OutputOptions = {}): OutputDir {
    const abs = resolve(path);
    const shown = named(abs, opts.flag);
    let made = false;
    try {
      mkdirSync(dirname(abs), { recursive: true });
      mkdirSync(abs, { mode: PRIVATE_DIR_MODE });
      made = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST")
        throw new UnsafeOutputError(`cannot create ${shown}: ${(e as Error).message}`);
    }
    const fd = openDir(null, abs, shown);
    const dir = new OutputDir(abs, fd, opts);
    if (!made && !opts.force) {
      const entries = readdirSync(fdPath(fd));
      if (entries.length > 0) {
        dir.close();
        throw new UnsafeOutputError(
          `${shown} exists and is not empty (${entries.length} entries, e.g. ${entries.slice(0, 3).join(", ")}): choose a new directory, or pass --force to write over what is there`,
        );
      }
    }
    return dir;
  }

  /** An existing directory the user named (a report directory): not created, not required to be empty. */
  static existing(path: string, opts: OutputOptions = {}): OutputDir {
    const abs = resolve(path);
    return new OutputDir(abs, openDir(null, abs, named(abs, opts.flag)), opts);
  }

  get force(): boolean {
    return this.opts.force ?? false;
  }

  /** The path of `rel` in this directory, for messages and for readers. */
  file(rel: string): string {
    return join(this.path, rel);
  }

  /** Whether `name` exists here (a link counts). */
  has(name: string): boolean {
    try {
      lstatSync(fdPath(this.fd, component(name)));
      return true;
    } catch {
      return false;
    }
  }

  /** The subdirectory `name`, created 0700 if missing; a link there is refused. */
  dir(name: string): OutputDir {
    component(name);
    try {
      mkdirSync(fdPath(this.fd, name), { mode: PRIVATE_DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST")
        throw new UnsafeOutputError(`cannot create ${this.file(name)}: ${(e as Error).message}`);
    }
    return new OutputDir(this.file(name), openDir(this.fd, name, this.file(name)), this.opts);
  }

  /**
   * Writes the file `rel` (`sub/name` goes into the subdirectory `sub`): a new file renamed into place, so
   * a link at that name is replaced, not followed. Returns its path.
   */
  write(rel: string, data: string | Uint8Array, mode = this.opts.mode ?? PRIVATE_FILE_MODE): string {
    const parts = rel.split("/");
    if (parts.length > 1) {
      const sub = this.dir(parts[0]!);
      try {
        sub.write(parts.slice(1).join("/"), data, mode);
      } finally {
        sub.close();
      }
      return this.file(rel);
    }
    replaceIn(this.fd, component(rel), data, mode, this.file(rel));
    return this.file(rel);
  }

  /**
   * Creates the file `name` new and returns its descriptor (a stream's, tcpdump's stdout): an existing
   * name is refused, or with `force` removed first (a link is removed, not followed).
   */
  openNew(name: string, mode = this.opts.mode ?? PRIVATE_FILE_MODE): number {
    return createIn(this.fd, component(name), mode, this.force, this.file(name));
  }

  /**
   * The text of the file `rel` (`sub/name` in the subdirectory `sub`), read without following a link;
   * null when it is not there.
   */
  read(rel: string): string | null {
    const parts = rel.split("/");
    if (parts.length > 1) {
      if (!this.has(parts[0]!)) return null;
      const sub = this.dir(parts[0]!);
      try {
        return sub.read(parts.slice(1).join("/"));
      } finally {
        sub.close();
      }
    }
    let fd: number;
    try {
      fd = openSync(fdPath(this.fd, component(rel)), O_RDONLY | O_NOFOLLOW);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      if (code === "ELOOP")
        throw new UnsafeOutputError(
          `${this.file(rel)} is a symbolic link: rocelab does not read through links`,
        );
      throw e;
    }
    try {
      return readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  }

  /** Removes the file `name` if it is there (never what a link points to). */
  remove(name: string): void {
    try {
      unlinkSync(fdPath(this.fd, component(name)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  /** Names in the directory. */
  entries(): string[] {
    return readdirSync(fdPath(this.fd));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/**
 * Opens the file `path` new for writing and returns its descriptor: the user named it, its directory must
 * exist; an existing name (a link included) is refused unless `force`, which removes it first.
 */
export function openNewFile(path: string, opts: OutputOptions = {}): number {
  const abs = resolve(path);
  const parent = openDir(null, dirname(abs), named(dirname(abs), undefined));
  try {
    return createIn(
      parent,
      component(basename(abs)),
      opts.mode ?? PRIVATE_FILE_MODE,
      opts.force ?? false,
      named(abs, opts.flag),
    );
  } finally {
    closeSync(parent);
  }
}

/**
 * Writes the file `path` the user named (one file, not a directory of them): created new; an existing one
 * is refused unless `force`, and then replaced by rename, never written through. Its directory must exist.
 */
export function writeNewFile(path: string, data: string | Uint8Array, opts: OutputOptions = {}): void {
  const abs = resolve(path);
  const mode = opts.mode ?? PRIVATE_FILE_MODE;
  if (opts.force) {
    const parent = openDir(null, dirname(abs), dirname(abs));
    try {
      replaceIn(parent, component(basename(abs)), data, mode, named(abs, opts.flag));
    } finally {
      closeSync(parent);
    }
    return;
  }
  const fd = openNewFile(abs, opts);
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** `--mode` as users write it (octal, e.g. 600 or 0644), or a refusal naming the option. */
export function parseFileMode(text: string, flag = "--mode"): number {
  if (!/^0?[0-7]{3}$/.test(text))
    throw new UnsafeOutputError(`${flag} takes an octal file mode like 600 or 0644, not "${text}"`);
  const mode = Number.parseInt(text, 8);
  if ((mode & 0o022) !== 0)
    throw new UnsafeOutputError(`${flag} ${text} would let others write the file: at most 644`);
  return mode;
}
