// Errors in user input: each problem names the file, the line and column, the path inside the document
// and what is allowed. Nothing is created before input validates.

import { readFileSync } from "node:fs";
import { isNode, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { allowedKeysAt } from "./schema-keys.js";

export interface ConfigProblem {
  /** Dotted path into the document: `links[2].rate`, `nodes.leaf1.pfc.xoff`. */
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(
      problems
        .map(
          (p) =>
            `${file}${p.line !== undefined ? `:${p.line}:${p.column}` : ""}: ${p.path || "(top)"}: ${p.message}`,
        )
        .join("\n"),
    );
    this.name = "ConfigError";
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** A parsed YAML document that can point back at the source of any path in it. */
export class SourceDocument {
  readonly data: unknown;
  private readonly doc: ReturnType<typeof parseDocument>;
  private readonly lines = new LineCounter();

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false });
    if (this.doc.errors.length > 0) {
      throw new ConfigError(
        file,
        this.doc.errors.map((e) => {
          const pos = e.linePos?.[0] ?? this.lines.linePos(e.pos[0]);
          return {
            path: "",
            message: `not valid YAML: ${e.message.split("\n")[0]}`,
            ...(pos ? { line: pos.line, column: pos.col } : {}),
          };
        }),
      );
    }
    this.data = this.doc.toJS();
  }

  /** Reads and parses a YAML file; an unreadable file or bad YAML is a ConfigError naming the file. */
  static read(file: string): SourceDocument {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      throw new ConfigError(file, [{ path: "", message: `cannot read the file: ${(e as Error).message}` }]);
    }
    return new SourceDocument(file, text);
  }

  /** Whether the source has a node at `path`. */
  has(path: readonly PropertyKey[]): boolean {
    return isNode(this.doc.getIn(path as unknown[], true));
  }

  /** A problem at `path`, located at the deepest node of the path that exists in the source. */
  problem(path: readonly PropertyKey[], message: string): ConfigProblem {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) {
        const pos = this.lines.linePos(node.range[0]);
        return { path: formatPath(path), message, line: pos.line, column: pos.col };
      }
    }
    return { path: formatPath(path), message };
  }

  /**
   * Says which kind of file this is when it is evidently the other kind (a topology given to `run`, a
   * scenario given to `up`), naming the command that wants it; else does nothing.
   */
  expectKind(kind: "topology" | "scenario"): void {
    const d = this.data;
    if (d === null || d === undefined) {
      const needs = kind === "topology" ? "nodes and links" : "a duration and a timeline";
      throw new ConfigError(this.file, [
        { path: "", message: `the file is empty: a ${kind} needs ${needs} (see docs/configuration.md)` },
      ]);
    }
    if (typeof d !== "object" || Array.isArray(d)) return;
    const isScenario = "timeline" in d;
    const isTopology = "nodes" in d && "links" in d && !isScenario;
    if (kind === "scenario" && isTopology) {
      throw new ConfigError(this.file, [
        {
          path: "",
          message:
            "this is a topology file (nodes, links), and a scenario (duration, timeline) is wanted here: " +
            "bring the topology up with `rocelab up FILE`, or name it in a scenario's `topology:`",
        },
      ]);
    }
    if (kind === "topology" && isScenario) {
      throw new ConfigError(this.file, [
        {
          path: "",
          message:
            "this is a scenario file (duration, timeline), and a topology (nodes, links) is wanted here: " +
            "run a scenario with `rocelab run FILE` (it brings up its own `topology:`)",
        },
      ]);
    }
  }

  /** Validates against `schema`; throws ConfigError listing every problem. */
  parse<S extends z.ZodType>(schema: S, data: unknown = this.data): z.output<S> {
    const result = schema.safeParse(data);
    if (result.success) return result.data;
    if (data === null || data === undefined) {
      throw new ConfigError(this.file, [
        { path: "", message: "the file is empty (see docs/configuration.md)" },
      ]);
    }
    throw new ConfigError(
      this.file,
      flattenIssues(result.error.issues).map((issue) =>
        this.problem(issue.path, describeIssue(issue, valueAt(data, issue.path), schema, data)),
      ),
    );
  }
}

type Issue = z.core.$ZodIssue;

/**
 * A union that fails reports every alternative's complaints, which reads as noise ("expected string,
 * expected object, unknown key..."). Pick the alternative the input was evidently meant to be — the one
 * whose complaints are all below its top level — and report only its problems, at their full paths.
 */
function flattenIssues(issues: readonly Issue[]): Issue[] {
  const out: Issue[] = [];
  for (const issue of issues) {
    if (issue.code !== "invalid_union" || !("errors" in issue) || issue.errors.length === 0) {
      out.push(issue);
      continue;
    }
    const branches = issue.errors as Issue[][];
    const depth = (b: Issue[]): number => Math.min(...b.map((i) => i.path.length));
    const shallowMismatch = (b: Issue[]): number =>
      b.filter((i) => i.path.length === 0 || i.code === "unrecognized_keys").length;
    const best = [...branches].sort(
      (a, b) => shallowMismatch(a) - shallowMismatch(b) || depth(b) - depth(a),
    )[0]!;
    if (shallowMismatch(best) > 0 && branches.length > 1) {
      out.push(issue);
      continue;
    }
    for (const inner of flattenIssues(best))
      out.push({ ...inner, path: [...issue.path, ...inner.path] } as Issue);
  }
  return out;
}

/** The input at `path`, for messages that quote what was written. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

const quote = (v: unknown): string => (typeof v === "string" ? `"${v}"` : (JSON.stringify(v) ?? String(v)));

/** zod's messages, reworded where they would confuse someone editing YAML: say what is allowed. */
function describeIssue(
  issue: z.core.$ZodIssue,
  value: unknown,
  schema: z.core.$ZodType,
  data: unknown,
): string {
  if (issue.code === "unrecognized_keys") {
    const unknown = `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    const allowed = allowedKeysAt(schema, data, issue.path);
    return allowed === undefined || allowed.length === 0
      ? unknown
      : `${unknown} (allowed: ${allowed.join(", ")})`;
  }
  if (issue.code === "invalid_union" && "discriminator" in issue && "options" in issue) {
    const options = (issue.options as readonly unknown[]).map(String).join(", ");
    const what = value === undefined ? "missing" : `${quote(value)} is not one of the allowed values`;
    return `${String(issue.discriminator)}: ${what} (${options})`;
  }
  if (issue.code === "invalid_union") {
    return "none of the allowed forms fits here (see docs/configuration.md)";
  }
  if (issue.code === "invalid_key") {
    const key = String(issue.path.at(-1));
    return `the name ${quote(key)} is not allowed: ${issue.issues.map((i) => i.message).join("; ")}`;
  }
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map((v) => quote(v)).join(", ");
    return value === undefined
      ? `missing: one of ${allowed}`
      : `${quote(value)} is not allowed: one of ${allowed}`;
  }
  return issue.message;
}
