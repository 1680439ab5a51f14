// One exit-status convention for every command: 0 done, 2 bad input, 1 a failure.
import { existsSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { rocelab } from "../helpers/cli.js";

t.test("bad input exits 2, with nothing created", async (t) => {
  const dir = t.testdir({
    "zero.yaml":
      "duration: 1ms\ntimeline:\n  - at: 0us\n    start: { type: incast, to: h8, from: 3, size: 0 }\n",
  });
  const unknown = await rocelab(["run", "--bogus", "x"]);
  t.equal(unknown.exitCode, 2, "an unknown option (commander's own error)");
  const out = join(dir, "out");
  const zero = await rocelab(["run", join(dir, "zero.yaml"), "--out", out, "--quiet"]);
  t.equal(zero.exitCode, 2, "size: 0");
  t.match(zero.stderr, /size: .*at least 1 byte/);
  t.notOk(existsSync(out), "no output folder");
  const kind = await rocelab(["topology", "docs/experiments/incast-pfc.yaml"]);
  t.equal(kind.exitCode, 2, "a scenario where a topology is wanted");
  t.end();
});

t.test(
  "down of a lab that never existed says so and fails",
  { skip: process.getuid?.() !== 0 },
  async (t) => {
    const r = await rocelab(["down", "--name", "h11nx"]);
    t.equal(r.exitCode, 1);
    t.match(r.stderr, /no lab named "h11nx" exists/);
    t.notMatch(r.stdout, /is down/);
    t.end();
  },
);
