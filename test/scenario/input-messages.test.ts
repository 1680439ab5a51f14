// Every input error says what is allowed, in the user's terms, and invalid settings are refused.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { ConfigError } from "../../src/scenario/config-error.js";
import { loadScenario } from "../../src/scenario/scenario.js";
import { loadTopology } from "../../src/scenario/topology-file.js";

const DEFAULT = readFileSync("docs/examples/default.yaml", "utf8");

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return "(no error)";
}

t.test("topology messages list what is allowed", (t) => {
  const cases: [string, string, RegExp][] = [
    [
      "mtu",
      DEFAULT.replace("mtu: 4096", "mtu: 1500"),
      /:8:\d+: defaults\.mtu: 1500 is not allowed: one of 256, 512, 1024, 2048, 4096/,
    ],
    [
      "space",
      DEFAULT.replace("  h1: { kind: host }", '  "h 1": { kind: host }'),
      /"h 1" is not allowed: .*letters, digits, - and _ \(at most 15/,
    ],
    ["semi", DEFAULT.replace("  h1: { kind: host }", "  h1;x: { kind: host }"), /"h1;x" is not allowed/],
    ["long", DEFAULT.replace("  h1: { kind: host }", `  ${"h".repeat(40)}: { kind: host }`), /at most 15/],
    [
      "eth0",
      DEFAULT.replace('"h1:eth1"', '"h1:eth0"'),
      /links\[4\]\[0\]: .*numbered from eth1, there is no eth0/,
    ],
    ["empty", "", /the file is empty: a topology needs nodes and links/],
    [
      "kind",
      DEFAULT.replace("  h1: { kind: host }", "  h1: { kind: hots }"),
      /kind: "hots" is not one of the allowed values \(switch, host\)/,
    ],
  ];
  const files = Object.fromEntries(cases.map(([name, text]) => [`${name}.yaml`, text]));
  const dir = t.testdir(files);
  for (const [name, , want] of cases)
    t.match(
      message(() => loadTopology(join(dir, `${name}.yaml`))),
      want,
      name,
    );
  t.end();
});

t.test("scenario messages: workload types, sizes, durations in the user's units, the kind of file", (t) => {
  const step = (start: string) => `duration: 5ms\ntimeline:\n  - at: 0us\n    start: ${start}\n`;
  const dir = t.testdir({
    "type.yaml": step("{ type: incasts, to: h8, from: 3, size: 1MB }"),
    "zero.yaml": step("{ type: incast, to: h8, from: 3, size: 0 }"),
    "late.yaml":
      "duration: 5ms\ntimeline:\n  - at: 6ms\n    start: { type: incast, to: h8, from: 3, size: 1MB }\n",
    "empty.yaml": "",
  });
  t.match(
    message(() => loadScenario(join(dir, "type.yaml"))),
    /type: "incasts" is not one of the allowed values \(incast, flow, permutation, all-to-all, all-reduce, mix\)/,
  );
  t.match(
    message(() => loadScenario(join(dir, "zero.yaml"))),
    /timeline\[0\]\.start\.size: .*at least 1 byte/,
  );
  t.match(
    message(() => loadScenario(join(dir, "late.yaml"))),
    /step at 6ms is after the end of the run \(duration 5ms\)/,
  );
  t.match(
    message(() => loadScenario(join(dir, "empty.yaml"))),
    /the file is empty: a scenario needs a duration/,
  );
  t.match(
    message(() => loadScenario("docs/examples/default.yaml")),
    /this is a topology file .*`rocelab up FILE`/,
  );
  t.match(
    message(() => loadTopology("docs/experiments/incast-pfc.yaml")),
    /this is a scenario file .*`rocelab run FILE`/,
  );
  t.end();
});

t.test("a static pfc.xoff larger than the buffer is refused, where it is written", (t) => {
  const dir = t.testdir({
    "topo.yaml": DEFAULT.replace(
      "  leaf1: { kind: switch }",
      "  leaf1: { kind: switch, pfc: { xoff: 100MB } }",
    ),
    "sc.yaml":
      "duration: 1ms\noverrides:\n  switches: { pfc: { xoff: 64MB } }\ntimeline:\n  - { at: 0us, stop: all }\n",
  });
  t.match(
    message(() => loadTopology(join(dir, "topo.yaml"))),
    /topo\.yaml:12:\d+: nodes\.leaf1\.pfc\.xoff: switch leaf1: pfc\.xoff 100MB is larger than the buffer/,
  );
  t.match(
    message(() => loadScenario(join(dir, "sc.yaml"))),
    /sc\.yaml:3:\d+: overrides\.switches\.pfc\.xoff: switch spine1/,
  );
  t.end();
});

t.test("an unknown key is named with the keys allowed where it is written", (t) => {
  const sc = readFileSync("docs/experiments/incast-dcqcn.yaml", "utf8")
    .replace("topology: ../examples/", `topology: ${join(process.cwd(), "docs/examples")}/`)
    .replace(
      "hosts: { dcqcn: nvidia }",
      "hosts: { dcqcn: nvidia, dcqcnn: 3 }\n  switches: { pfc: { enabeld: true } }",
    );
  const dir = t.testdir({ "sc.yaml": sc, "top.yaml": `${sc}colour: blue\n` });
  const msg = message(() => loadScenario(join(dir, "sc.yaml")));
  t.match(
    msg,
    /overrides\.switches\.pfc: unknown key "enabeld" \(allowed: [a-zA-Z, ]*\benabled\b[a-zA-Z, ]*\)/,
  );
  t.match(
    msg,
    /overrides\.hosts: unknown key "dcqcnn" \(allowed: [a-zA-Z, ]*\bdcqcn, [a-zA-Z, ]*\btransport\b/,
  );
  t.match(
    message(() => loadScenario(join(dir, "top.yaml"))),
    /unknown key "colour" \(allowed: [a-z, ]*duration, [a-z, ]*timeline, topology\)/,
  );
  t.end();
});
