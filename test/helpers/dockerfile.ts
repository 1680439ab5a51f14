// Reading a Dockerfile the way the image tests need: its stages, the Debian packages each installs, the
// files each copies, its entrypoint. Enough of the syntax for this project's Dockerfiles; not a parser of
// every Dockerfile.

export interface Stage {
  /** The stage's name (`FROM image AS name`), or "" */
  readonly name: string;
  /** Its instructions with continuation lines joined and comments dropped. */
  readonly lines: readonly string[];
}

/** Instructions, continuation lines joined, comments and blank lines dropped. */
export function instructions(dockerfile: string): string[] {
  return dockerfile
    .split("\n")
    .filter((l) => !/^\s*#/.test(l))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

export function stages(dockerfile: string): Stage[] {
  const out: { name: string; lines: string[] }[] = [];
  for (const line of instructions(dockerfile)) {
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) out.push({ name: from[1] ?? "", lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/** The packages a stage's `apt-get install` commands name (options and other commands left out). */
export function aptPackages(stage: Stage): string[] {
  const packages: string[] = [];
  for (const line of stage.lines) {
    if (!/^RUN\s/.test(line)) continue;
    for (const command of line.split(/&&|;|\|\|/)) {
      const m = /\bapt-get\s+install\s+(.*)$/.exec(command);
      if (m)
        packages.push(
          ...m[1]!
            .trim()
            .split(/\s+/)
            .filter((w) => w !== "" && !w.startsWith("-")),
        );
    }
  }
  return packages;
}

export interface Copy {
  readonly from: string | null;
  readonly sources: readonly string[];
  readonly dest: string;
}

/** A stage's COPY instructions (`--from=STAGE` kept, other options dropped). */
export function copies(stage: Stage): Copy[] {
  return stage.lines
    .filter((l) => /^COPY\s/.test(l))
    .map((l) => {
      const words = l.split(/\s+/).slice(1);
      const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length) ?? null;
      const paths = words.filter((w) => !w.startsWith("--"));
      return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
    });
}

/** The exec-form ENTRYPOINT of the last stage, or null. */
export function entrypoint(dockerfile: string): string[] | null {
  const line = instructions(dockerfile)
    .filter((l) => /^ENTRYPOINT\s/.test(l))
    .at(-1);
  return line === undefined ? null : (JSON.parse(line.replace(/^ENTRYPOINT\s+/, "")) as string[]);
}
