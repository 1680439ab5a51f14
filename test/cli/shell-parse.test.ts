// `rocelab cli`'s language (shell-parse.ts) and its ping annotation (shell-ping.ts): what each line means,
// what Tab offers, and how a ping line reads with its emulated round trip.
import t from "tap";
import { completeShell, parseShellLine, splitWords, withLabName } from "../../src/cli/shell-parse.js";
import { annotatePing, pingArgs } from "../../src/cli/shell-ping.js";

const NODES = ["spine1", "spine2", "leaf1", "leaf2", "h1", "h2", "h8"];
const HOSTS = ["h1", "h2", "h8"];
const CTX = {
  nodes: NODES,
  hosts: HOSTS,
  neighbours: new Map([
    ["leaf1", ["spine1", "spine2", "h1", "h2"]],
    ["h1", ["leaf1"]],
  ]),
};

t.test("lines mean what Mininet's do, and rocelab's commands act on the lab", async (t) => {
  t.same(parseShellLine("h1 ping h8", NODES), { kind: "ping", node: "h1", argv: ["ping", "h8"] });
  t.same(parseShellLine("  h1   ip -br addr ", NODES), {
    kind: "exec",
    node: "h1",
    argv: ["ip", "-br", "addr"],
  });
  t.same(parseShellLine(`h1 sh -c 'echo "a b"'`, NODES), {
    kind: "exec",
    node: "h1",
    argv: ["sh", "-c", 'echo "a b"'],
  });
  t.same(parseShellLine("link leaf1 spine1 down", NODES), {
    kind: "link",
    a: "leaf1",
    b: "spine1",
    up: false,
  });
  t.same(parseShellLine("link leaf1 spine1 up", NODES), { kind: "link", a: "leaf1", b: "spine1", up: true });
  t.match(parseShellLine("link leaf1 spine9 down", NODES), { kind: "error", message: /no node spine9/ });
  t.match(parseShellLine("link leaf1 spine1 sideways", NODES), { kind: "error", message: /usage: link/ });
  t.same(parseShellLine("stats leaf2", NODES), { kind: "rocelab", argv: ["stats", "leaf2"] });
  t.same(parseShellLine("incast --to h8 --wait", NODES), {
    kind: "rocelab",
    argv: ["inject", "incast", "--to", "h8", "--wait"],
  });
  for (const k of ["nodes", "net", "links", "pingall"] as const)
    t.same(parseShellLine(k, NODES), { kind: k });
  t.match(parseShellLine("nodes extra", NODES), { kind: "error" });
  t.same(parseShellLine("exit", NODES), { kind: "exit" });
  t.same(parseShellLine("quit", NODES), { kind: "exit" });
  t.same(parseShellLine("", NODES), { kind: "empty" });
  t.same(parseShellLine("# a comment", NODES), { kind: "empty" });
  t.match(parseShellLine("h1", NODES), { kind: "error", message: /h1 what\?/ });
  t.match(parseShellLine("tui", NODES), { kind: "error", message: /unknown command or node "tui"/ });
  t.match(parseShellLine("h1 echo 'open", NODES), { kind: "error", message: /unterminated ' quote/ });
});

t.test("words split as a shell splits them, never expanded", async (t) => {
  t.same(splitWords(`a "b c" 'd $e' f\\ g ""`), ["a", "b c", "d $e", "f g", ""]);
  t.same(splitWords(`"x\\"y"`), ['x"y']);
  t.same(splitWords("$(rm -rf /) `x`"), ["$(rm", "-rf", "/)", "`x`"]);
});

t.test("--name goes before a --", async (t) => {
  t.same(withLabName(["stats", "leaf2"], "lab"), ["stats", "leaf2", "--name", "lab"]);
  t.same(withLabName(["exec", "h1", "--", "ping", "h8"], "lab"), [
    "exec",
    "h1",
    "--name",
    "lab",
    "--",
    "ping",
    "h8",
  ]);
  t.same(withLabName(["stats", "h1", "--name", "other"], "lab"), ["stats", "h1", "--name", "other"]);
});

t.test("Tab completes commands, node names and what fits the command", async (t) => {
  t.same(completeShell("pin", CTX), [["pingall "], "pin"]);
  t.same(completeShell("le", CTX), [["leaf1", "leaf2"], "le"]);
  t.same(completeShell("st", CTX), [["status", "stats"], "st"]);
  t.same(completeShell("h1 pi", CTX), [["ping "], "pi"]);
  t.same(completeShell("h1 ping ", CTX), [["h2", "h8"], ""], "hosts other than itself");
  t.same(completeShell("link leaf1 sp", CTX), [["spine1", "spine2"], "sp"], "leaf1's neighbours");
  t.same(completeShell("link leaf1 spine1 d", CTX), [["down "], "d"]);
  t.same(completeShell("stats l", CTX), [["leaf1", "leaf2"], "l"]);
  t.same(completeShell("incast --to ", CTX), [HOSTS, ""]);
  t.same(completeShell("incast --to h8 --w", CTX), [["--wait "], "--w"]);
  t.same(completeShell("inject k", CTX), [["kill "], "k"]);
  t.same(completeShell("capture h1", CTX), [["h1:eth "], "h1"]);
});

t.test("ping: a count when none is given, each reply with its emulated round trip", async (t) => {
  t.same(pingArgs(["ping", "h8"]), ["ping", "-c", "3", "h8"]);
  t.same(pingArgs(["ping", "-c", "5", "h8"]), ["ping", "-c", "5", "h8"]);
  t.same(pingArgs(["ping", "-w", "2", "h8"]), ["ping", "-w", "2", "h8"]);
  const out = [
    "PING h8 (10.1.0.15) 56(84) bytes of data.",
    "64 bytes from h8 (10.1.0.15): icmp_seq=1 ttl=61 time=15.2 ms",
    "64 bytes from h8 (10.1.0.15): icmp_seq=2 ttl=61 time=9.87 ms",
  ].join("\n");
  const text = annotatePing(
    out,
    new Map([
      ["77:1", 10_500],
      ["77:2", 10_300],
    ]),
  );
  t.match(text, /icmp_seq=1 ttl=61 time=10\.5us emulated \(15\.2 ms real\)/);
  t.match(text, /icmp_seq=2 ttl=61 time=10\.3us emulated \(9\.87 ms real\)/);
  t.match(text, /emulated rtt min\/avg\/max = 10\.3us\/10\.4us\/10\.5us/);
  t.match(annotatePing(out, new Map()), /icmp_seq=1 ttl=61 time=not recorded \(15\.2 ms real\)/);
});
