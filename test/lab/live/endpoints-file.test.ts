// The endpoints file of `rocelab attach`: every problem names the file, the line, the path and what is
// allowed; tokens are read with the file and refused when weak or readable by others.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { loadEndpoints } from "../../../src/lab/live/endpoints-file.js";
import { ConfigError } from "../../../src/scenario/config-error.js";
import { defaultTopology } from "../../../src/scenario/topology.js";

const NODES = defaultTopology().nodes.map((n) => n.name);
const TOKEN = "a5".repeat(32);

function write(dir: string, body: string): string {
  const file = join(dir, "endpoints.yaml");
  writeFileSync(file, body);
  return file;
}

function devices(except: readonly string[] = [], extra = ""): string {
  return `devices:\n${NODES.filter((n) => !except.includes(n))
    .map((n, i) => `  ${n}: tcp://172.31.1.${10 + i}:7700`)
    .join("\n")}\n${extra}`;
}

function problem(file: string): string {
  try {
    loadEndpoints(file);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return "(no error)";
}

t.test("a complete file: every node, its endpoint and its token", (t) => {
  const dir = t.testdir({ "control.token": `${TOKEN}\n`, "h1.token": `${"b6".repeat(20)}\n` });
  chmodSync(join(dir, "control.token"), 0o600);
  chmodSync(join(dir, "h1.token"), 0o600);
  const file = write(
    dir,
    `topology: default\ndilation: 2000\nreactionMs: 50\nlab: demo\ntokenFile: control.token\n${devices(["h1", "h2"])}` +
      `  h1: { endpoint: "tcp://[fd00::1]:7700", tokenFile: h1.token }\n  h2: { endpoint: "unix:sock/h2.sock", tokenFile: null }\n`,
  );
  const e = loadEndpoints(file);
  t.equal(e.dilation, 2000);
  t.equal(e.reactionMs, 50);
  t.equal(e.lab, "demo");
  t.equal(e.devices.length, NODES.length, "every node");
  const h1 = e.devices.find((d) => d.node === "h1")!;
  t.same(h1.endpoint, { kind: "tcp", host: "fd00::1", port: 7700 }, "an IPv6 endpoint");
  t.equal(h1.token?.toString(), "b6".repeat(20), "h1's own token");
  const h2 = e.devices.find((d) => d.node === "h2")!;
  t.same(h2.endpoint, { kind: "unix", path: join(dir, "sock/h2.sock") }, "a Unix path relative to the file");
  t.equal(h2.token, null, "no token on the Unix socket");
  t.equal(e.devices.find((d) => d.node === "leaf1")!.token?.toString(), TOKEN, "the default token");
  t.equal(e.devices.find((d) => d.node === "leaf1")!.kind, "switch");
  t.equal(e.connectTimeoutMs, 60_000, "default connect timeout");
  t.end();
});

t.test("problems name the file, the line, the path and what is allowed", (t) => {
  const dir = t.testdir({
    "control.token": `${TOKEN}\n`,
    "short.token": "abc\n",
    "open.token": `${TOKEN}\n`,
  });
  chmodSync(join(dir, "control.token"), 0o600);
  chmodSync(join(dir, "short.token"), 0o600);
  chmodSync(join(dir, "open.token"), 0o644);
  const head = "topology: default\ndilation: 1000\ntokenFile: control.token\n";
  const cases: [string, string, RegExp][] = [
    [
      "bad endpoint",
      head + devices(["h1"], "  h1: http://10.0.0.1\n"),
      /endpoints\.yaml:\d+:\d+: devices\.h1: .*tcp:\/\/HOST:PORT or unix:PATH/,
    ],
    [
      "unknown node",
      head + devices([], "  h9: tcp://10.0.0.9:7700\n"),
      /devices\.h9: no node "h9" in topology default \(nodes: spine1, spine2, leaf1/,
    ],
    [
      "missing nodes",
      head + devices(["h7", "h8"]),
      /devices: every node of topology default needs an endpoint; missing: h7, h8/,
    ],
    [
      "no token on TCP",
      `topology: default\ndilation: 1000\n${devices()}`,
      /devices\.spine1: tcp:\/\/172\.31\.1\.10:7700 is a TCP endpoint: it needs a tokenFile/,
    ],
    [
      "short token",
      `topology: default\ndilation: 1000\ntokenFile: short.token\n${devices()}`,
      /tokenFile: token file .*short\.token holds 3 bytes; at least 16 are needed \(for example: openssl rand -hex 32/,
    ],
    [
      "readable token",
      `topology: default\ndilation: 1000\ntokenFile: open.token\n${devices()}`,
      /tokenFile: token file .*open\.token may be read by others \(mode 644\): chmod 600/,
    ],
    [
      "dilation",
      `topology: default\ndilation: 0.5\ntokenFile: control.token\n${devices()}`,
      /dilation: .*>=1|dilation: .*1/,
    ],
    ["unknown key", `${head}dilaton: 3\n${devices()}`, /unknown key "dilaton"/],
    [
      "missing topology file",
      `topology: nowhere.yaml\ndilation: 1000\n${devices()}`,
      /nowhere\.yaml: .*cannot read the file/,
    ],
  ];
  for (const [name, body, want] of cases) t.match(problem(write(dir, body)), want, name);
  t.end();
});
