// `rocelab run --workers N` (N > 1) runs itself again with V8's single-threaded collector
// (src/cli/gc-rerun.ts): the command line it builds, and a whole run through it from the CLI: its report,
// its exit statuses and its messages pass through once.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import {
  hasSingleThreadedGc,
  needsGcRerun,
  rerunCommand,
  SINGLE_THREADED_GC,
} from "../../src/cli/gc-rerun.js";
import { rocelab } from "../helpers/cli.js";

t.test("the command line: node, the flag, node's own options, then the same script and arguments", (t) => {
  t.same(
    rerunCommand(
      "/usr/bin/node",
      ["--enable-source-maps"],
      ["/usr/bin/node", "cli.js", "run", "a.yaml", "--workers", "2"],
    ),
    [
      "/usr/bin/node",
      [SINGLE_THREADED_GC, "--enable-source-maps", "cli.js", "run", "a.yaml", "--workers", "2"],
    ],
  );
  t.ok(hasSingleThreadedGc(["--x", SINGLE_THREADED_GC]));
  t.notOk(hasSingleThreadedGc(["--single-threaded"]), "only the flag itself");
  t.ok(needsGcRerun({ runtime: "sim", workers: 2 }, []), "a split simulation without the flag");
  t.notOk(needsGcRerun({ runtime: "sim", workers: 2 }, [SINGLE_THREADED_GC]), "not twice");
  t.notOk(needsGcRerun({ runtime: "sim", workers: 1 }, []), "one worker keeps V8's helper threads");
  t.notOk(needsGcRerun({ runtime: "live", workers: 1 }, []), "nor a live run");
  t.end();
});

t.test(
  "a --workers 2 run from the CLI: the report of --workers 1, one message per problem, exit 2 on a refusal",
  async (t) => {
    const dir = t.testdir({
      "s.yaml":
        "name: s\ntopology: default\nseed: 3\nduration: 300us\ntimeline:\n  - at: 0us\n    start: { type: incast, to: h8, from: 3, size: 64KB }\n",
    });
    const one = await rocelab(["run", join(dir, "s.yaml"), "--out", join(dir, "o1"), "--quiet"]);
    const two = await rocelab([
      "run",
      join(dir, "s.yaml"),
      "--out",
      join(dir, "o2"),
      "--quiet",
      "--workers",
      "2",
    ]);
    t.equal(one.exitCode, 0, one.stderr);
    t.equal(two.exitCode, 0, two.stderr);
    const report = (d: string) =>
      readFileSync(join(dir, d, "report.json"), "utf8").replace(/"wallClockMs":\s*[\d.e+-]+/, "");
    t.equal(report("o2"), report("o1"), "the same report");
    const summary = (out: string, d: string) =>
      out.replace(/emulated in [\d.]+ s/, "").replaceAll(join(dir, d), "OUT");
    t.equal(summary(two.stdout, "o2"), summary(one.stdout, "o1"), "the same summary, printed once");
    const refused = await rocelab([
      "run",
      join(dir, "s.yaml"),
      "--out",
      join(dir, "o3"),
      "--workers",
      "2",
      "--capture",
      "h1:eth1",
    ]);
    t.equal(refused.exitCode, 2);
    t.equal(refused.stderr.match(/--capture is not available/g)?.length, 1, refused.stderr);
    t.end();
  },
);
