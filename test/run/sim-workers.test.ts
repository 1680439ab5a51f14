// `--workers auto` (src/run/sim-workers.ts, src/cli/run-workers.ts): one worker per core when the fabric
// has MIN_HOSTS_PER_WORKER hosts per worker and nothing refuses a split; one otherwise.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import t from "tap";
import { UsageError } from "../../src/cli/errors.js";
import { busyCores, runWorkers } from "../../src/cli/run-workers.js";
import {
  autoWorkers,
  MIN_HOSTS_PER_WORKER,
  offeredBytes,
  parseWorkersOption,
} from "../../src/run/sim-workers.js";
import { loadScenario } from "../../src/scenario/scenario.js";

const k8 = resolve("docs/examples/fat-tree-k8.yaml");

t.test(
  "the rule: a k = 8 fat tree splits over two cores, a small fabric or one core stays whole",
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "sim-workers-"));
    try {
      const file = (name: string, body: string, duration = "10ms"): string => {
        const f = join(dir, `${name}.yaml`);
        writeFileSync(f, `name: ${name}\nseed: 1\nduration: ${duration}\n${body}`);
        return f;
      };
      const big = loadScenario(
        file(
          "big",
          `topology: ${k8}\ntimeline:\n  - at: 0us\n    start: { type: all-to-all, hosts: all, size: 1MB }\n`,
        ),
      );
      t.equal(offeredBytes(big), 128 * 125e6, "each host's 127 MB, at most its 100 Gb/s for 10 ms (125 MB)");
      const short = file(
        "short",
        `topology: ${k8}\ntimeline:\n  - at: 0us\n    start: { type: flow, from: h1, to: h128, size: 100MB }\n`,
        "1ms",
      );
      t.equal(offeredBytes(loadScenario(short)), 12.5e6, "at most what h1's 100 Gb/s link carries in 1 ms");
      const light = loadScenario(
        file(
          "light",
          `topology: ${k8}\ntimeline:\n  - at: 0us\n    start: { type: flow, from: h1, to: h128, size: 8KB }\n`,
        ),
      );
      t.equal(autoWorkers(light, 2).workers, 1, "a large fabric with little to carry stays whole");
      t.match(autoWorkers(light, 2).why, /0 MiB to carry: a split pays from 1024/);
      t.equal(MIN_HOSTS_PER_WORKER, 64);
      t.equal(autoWorkers(big, 2).workers, 2, "128 hosts, 2 cores");
      t.match(autoWorkers(big, 2).why, /128 hosts, 15259 MiB to carry, 2 of 2 cores free/);
      t.equal(autoWorkers(big, 8).workers, 2, "at most one worker per 64 hosts");
      t.same(autoWorkers(big, 1), { workers: 1, why: "one core" });
      t.same(
        autoWorkers(big, 2, {}, 0.8),
        { workers: 1, why: "0.8 of 2 cores busy" },
        "a core other jobs keep busy is not counted",
      );
      t.equal(autoWorkers(big, 4, {}, 1.7).workers, 2, "4 cores, 2 busy: 2 workers");
      const small = loadScenario(file("small", "topology: default\ntimeline:\n  - at: 0us\n    stop: all\n"));
      t.equal(autoWorkers(small, 2).workers, 1, "the default fabric");
      t.match(autoWorkers(small, 2).why, /hosts: a split pays from 128/);
      const ring = loadScenario(
        file(
          "ring",
          `topology: ${k8}\ntimeline:\n  - at: 0us\n    start: { type: all-reduce, hosts: all, size: 64KB }\n`,
        ),
      );
      t.equal(autoWorkers(ring, 2).workers, 1, "a scenario a split cannot carry stays whole");
      t.match(autoWorkers(ring, 2).why, /not split: a workload with dependent flows/);
      t.equal(autoWorkers(big, 2, { capture: true }).workers, 1, "nor with --capture");

      // The CLI's side: the line it prints, what it refuses, and how busy the machine is, measured only
      // for a run the rule would split.
      const sim = { runtime: "sim", workers: "auto" as const };
      let measured = 0;
      const idle = async () => {
        measured++;
        return 0.1;
      };
      t.same(await runWorkers(sim, big, false, 2, idle), {
        workers: 2,
        why: "simulating on 2 workers: 128 hosts, 15259 MiB to carry, 2 of 2 cores free (--workers 1 for one thread)",
      });
      t.equal(measured, 1);
      t.same(
        await runWorkers(sim, small, false, 2, idle),
        { workers: 1, why: null },
        "silent when it stays whole",
      );
      t.equal(measured, 1, "a run that stays whole does not wait to measure the machine");
      t.same(
        await runWorkers(sim, big, false, 2, async () => 1.2),
        { workers: 1, why: null },
        "a core busy with something else: one worker",
      );
      t.same(await runWorkers({ runtime: "sim", workers: 1 }, big, false, 2, idle), {
        workers: 1,
        why: null,
      });
      t.same(
        await runWorkers({ runtime: "sim", workers: 2 }, small, false, 2, idle),
        { workers: 2, why: null },
        "asked for",
      );
      await t.rejects(runWorkers({ runtime: "sim", workers: 2 }, ring, false, 2, idle), UsageError);
      t.same(await runWorkers({ runtime: "live", workers: "auto" }, big, false, 2, idle), {
        workers: 1,
        why: null,
      });
      await t.rejects(
        runWorkers({ runtime: "live", workers: 2 }, big, false, 2, idle),
        /an option of the sim runtime/,
      );
      const busy = await busyCores(50);
      t.ok(busy >= 0 && busy <= availableParallelism(), `busy cores measured: ${busy.toFixed(2)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    t.end();
  },
);

t.test("--workers takes auto or a whole number >= 1", (t) => {
  t.equal(parseWorkersOption("auto"), "auto");
  t.equal(parseWorkersOption("3"), 3);
  for (const bad of ["0", "-1", "1.5", "two", ""])
    t.throws(() => parseWorkersOption(bad), /--workers takes auto or a whole number >= 1/, bad);
  t.end();
});

t.test("the bytes to carry: flows as the run posts them, each host at its link's rate, UDP streams", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "sim-workers-"));
  try {
    const f = join(dir, "o.yaml");
    writeFileSync(
      f,
      [
        "name: o",
        "topology: default",
        "seed: 1",
        "duration: 1ms",
        "timeline:",
        "  - at: 0us",
        "    start: { type: flow, from: h1, to: h2, size: 1MB, repeat: 3, interval: 400us }",
        "  - at: 10us",
        "    start: { type: incast, to: h8, from: [h1, h2, h3], size: 64KB }",
        "  - at: 900us",
        "    start: { type: flow, from: h1, to: h2, size: 1MB, repeat: 2, interval: 200us }",
        "",
      ].join("\n"),
    );
    const sc = loadScenario(f);
    // 1 MB at 0, 400 and 800 µs; 3 × 64 KB; 1 MB at 900 µs (the one at 1,100 µs is past the end).
    t.equal(offeredBytes(sc), 4e6 + 3 * 64_000);
    // A UDP stream (the CLI's and the TUI's action): 8 Gb/s for the last 500 µs is 500 KB.
    const udp = { kind: "udp", from: "h1", to: "h3", rateBps: 8e9 } as const;
    t.equal(offeredBytes({ ...sc, timeline: [{ atNs: 500_000, action: udp }] }), 500_000);
    const g = join(dir, "incast.yaml");
    writeFileSync(
      g,
      "name: i\ntopology: default\nseed: 1\nduration: 1ms\ntimeline:\n  - at: 0us\n    start: { type: incast, to: h8, from: 7, size: 10MB }\n",
    );
    t.equal(
      offeredBytes(loadScenario(g)),
      12.5e6,
      "an incast carries what its receiver's link takes: 1 ms at 100 Gb/s",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  t.end();
});
