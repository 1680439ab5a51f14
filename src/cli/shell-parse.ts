// `rocelab cli`'s language, in the manner of Mininet's CLI (mininet/cli.py): what a line means and how a
// word completes. Pure: the prompt (shell-command.ts) reads lines and runs what this returns. A line is
// split into words as a shell would (quotes, backslashes) but never given to a shell: every command runs
// with an argument array.

/** The rocelab commands a line may start with; each acts on the prompt's lab (`--name` is added). */
export const LAB_COMMANDS = [
  "status",
  "stats",
  "clear-counters",
  "capture",
  "trace",
  "inject",
  "pfc",
  "dilation",
  "path-nav",
] as const;

/** The prompt's own commands (Mininet's names where it has one). */
export const SHELL_COMMANDS = [
  "help",
  "nodes",
  "net",
  "links",
  "link",
  "pingall",
  "incast",
  "exit",
  "quit",
] as const;

/** What a line asks for. */
export type ShellLine =
  | { readonly kind: "empty" }
  | { readonly kind: "exit" }
  | { readonly kind: "help" }
  | { readonly kind: "nodes" | "net" | "links" | "pingall" }
  | { readonly kind: "link"; readonly a: string; readonly b: string; readonly up: boolean }
  /** NODE CMD…: CMD in the node's namespace, as `rocelab exec NODE -- CMD…`. */
  | { readonly kind: "exec"; readonly node: string; readonly argv: readonly string[] }
  /** `h1 ping …`: ping with the emulated round trip beside the real one. */
  | { readonly kind: "ping"; readonly node: string; readonly argv: readonly string[] }
  /** A rocelab command on this lab: its arguments as `rocelab` takes them, `--name` added. */
  | { readonly kind: "rocelab"; readonly argv: readonly string[] }
  | { readonly kind: "error"; readonly message: string };

/** Words of a line, split as a POSIX shell splits them (quotes and backslashes; no expansion). */
export function splitWords(line: string): string[] | { error: string } {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!))
        word += line[++i]!;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i]!;
    } else if (c === " " || c === "\t") {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote !== null) return { error: `unterminated ${quote} quote` };
  if (word !== null) words.push(word);
  return words;
}

/** Means `line` against the lab's node names. */
export function parseShellLine(line: string, nodes: readonly string[]): ShellLine {
  const words = splitWords(line);
  if (!Array.isArray(words)) return { kind: "error", message: words.error };
  const [first, ...rest] = words;
  if (first === undefined || first.startsWith("#")) return { kind: "empty" };
  if (nodes.includes(first)) {
    if (rest.length === 0)
      return { kind: "error", message: `${first} what? (for example: ${first} ip addr)` };
    // Node names in the command stay names: they resolve inside the namespace (/etc/netns/<ns>/hosts).
    if (rest[0] === "ping") return { kind: "ping", node: first, argv: rest };
    return { kind: "exec", node: first, argv: rest };
  }
  switch (first) {
    case "exit":
    case "quit":
    case "EOF":
      return { kind: "exit" };
    case "help":
    case "?":
      return { kind: "help" };
    case "nodes":
    case "net":
    case "links":
    case "pingall":
      return rest.length === 0 ? { kind: first } : { kind: "error", message: `${first} takes no arguments` };
    case "link":
      return parseLink(rest, nodes);
    case "incast":
      return { kind: "rocelab", argv: ["inject", "incast", ...rest] };
    case "exec":
      return { kind: "error", message: "type the command after the node: h1 ping h8" };
    default:
      if ((LAB_COMMANDS as readonly string[]).includes(first)) return { kind: "rocelab", argv: words };
      return {
        kind: "error",
        message: `unknown command or node "${first}" (help lists the commands; nodes: ${nodes.join(" ")})`,
      };
  }
}

function parseLink(args: readonly string[], nodes: readonly string[]): ShellLine {
  const usage = "link NODE1 NODE2 up|down";
  if (args.length !== 3) return { kind: "error", message: `usage: ${usage}` };
  const [a, b, state] = args as [string, string, string];
  for (const n of [a, b])
    if (!nodes.includes(n)) return { kind: "error", message: `no node ${n} (nodes: ${nodes.join(" ")})` };
  if (state !== "up" && state !== "down")
    return { kind: "error", message: `usage: ${usage} (not "${state}")` };
  return { kind: "link", a, b, up: state === "up" };
}

/** `argv` of a lab command with `--name lab` added (before a `--`, after which words are arguments). */
export function withLabName(argv: readonly string[], lab: string): string[] {
  if (argv.includes("--name") || argv.some((w) => w.startsWith("--name="))) return [...argv];
  const end = argv.indexOf("--");
  return end < 0 ? [...argv, "--name", lab] : [...argv.slice(0, end), "--name", lab, ...argv.slice(end)];
}

/** What the completer knows about the lab. */
export interface CompletionContext {
  readonly nodes: readonly string[];
  readonly hosts: readonly string[];
  /** Each node's neighbours (link NODE1 <tab>). */
  readonly neighbours: ReadonlyMap<string, readonly string[]>;
}

/** Commands often run in a node's namespace (the second word after a node name). */
const NODE_COMMANDS = ["ping", "ip", "tcpdump", "ss", "ethtool", "arp", "traceroute", "sysctl"];

const INJECT_SUBCOMMANDS = [
  "incast",
  "link-down",
  "link-up",
  "kill",
  "restart",
  "udp",
  "stop",
  "preset",
  "pfc-storm",
  "route",
];

/**
 * readline's completer: the candidates for the word under the cursor (the line's last word) and that word.
 * Commands and node names first; then what fits the command: hosts after `ping`, a neighbour after
 * `link NODE`, up/down, a node after `stats`, NODE:ethN for ports, options of `incast`.
 */
export function completeShell(line: string, ctx: CompletionContext): [string[], string] {
  const words = line.split(/[ \t]+/);
  const word = words[words.length - 1] ?? "";
  const before = words.slice(0, -1).filter((w) => w !== "");
  const pick = (all: readonly string[]): [string[], string] => {
    const hits = [...new Set(all)].filter((c) => c.startsWith(word));
    return [hits.length === 1 ? [`${hits[0]!} `] : hits, word];
  };
  const [cmd, ...args] = before;
  if (cmd === undefined) return pick([...SHELL_COMMANDS, ...LAB_COMMANDS, ...ctx.nodes]);
  if (ctx.nodes.includes(cmd)) {
    if (args.length === 0) return pick(NODE_COMMANDS);
    return pick(ctx.hosts.filter((h) => h !== cmd));
  }
  switch (cmd) {
    case "link":
      if (args.length === 0) return pick(ctx.nodes);
      if (args.length === 1) return pick(ctx.neighbours.get(args[0]!) ?? []);
      if (args.length === 2) return pick(["up", "down"]);
      return [[], word];
    case "stats":
    case "clear-counters":
      return pick(ctx.nodes);
    case "trace":
      return args.length < 2 ? pick(ctx.hosts) : [[], word];
    case "incast":
      return completeIncast(args, ctx, pick);
    case "inject":
      if (args.length === 0) return pick(INJECT_SUBCOMMANDS);
      if (args[0] === "incast") return completeIncast(args.slice(1), ctx, pick);
      if (args[0] === "kill" || args[0] === "restart") return pick(ctx.nodes);
      if (args[0] === "pfc-storm") return pick(ctx.hosts);
      if (args[0] === "link-down" || args[0] === "link-up") return pick(ctx.nodes.map((n) => `${n}:eth`));
      return [[], word];
    case "capture":
      return pick(ctx.nodes.map((n) => `${n}:eth`));
    case "help":
      return pick([...SHELL_COMMANDS, ...LAB_COMMANDS]);
    default:
      return [[], word];
  }
}

function completeIncast(
  args: readonly string[],
  ctx: CompletionContext,
  pick: (all: readonly string[]) => [string[], string],
): [string[], string] {
  const last = args[args.length - 1];
  if (last === "--to") return pick(ctx.hosts);
  if (last === "--from" || last === "--size" || last === "--qps") return pick([]);
  return pick(["--to", "--from", "--size", "--qps", "--wait"].filter((o) => !args.includes(o)));
}

/** The prompt's help text. */
export function shellHelp(lab: string): string {
  return [
    `rocelab cli on lab ${lab}: Mininet-style commands; Tab completes commands and node names.`,
    "",
    "  NODE CMD ...              run CMD in the node's namespace (h1 ip addr, h1 tcpdump -ni host0 -c 5)",
    "  NODE ping HOST            ping with names; each reply's round trip in emulated time and real time",
    "  pingall                   every host pings every other host once",
    "  nodes                     the lab's devices",
    "  net                       each device's ports and what they connect to",
    "  links                     every link and whether it is up",
    "  link NODE1 NODE2 down|up  take the links between two nodes down or bring them back",
    "  incast --to h8 [--from 4] [--size 4MB] [--wait]   an N-to-1 RDMA WRITE incast (inject incast)",
    "  status | stats NODE | trace SRC DST | capture NODE:ethN -w FILE | inject ... | pfc ... | dilation",
    "                            rocelab's commands on this lab (rocelab COMMAND --help says more)",
    "  help                      this text",
    "  exit                      leave the prompt (the lab keeps running; Ctrl-D too)",
  ].join("\n");
}
