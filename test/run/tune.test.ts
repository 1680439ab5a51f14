// `rocelab tune`: a seeded search (same seed, same candidates), the Pareto front and the recommended point,
// a profile snippet the schema accepts, and a short end-to-end run over two worker threads.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import t from "tap";
import { parse } from "yaml";
import {
  type Candidate,
  PRESETS,
  paretoFront,
  profileSnippet,
  rankingBasis,
  rankingWhy,
  recommend,
  searchCandidates,
  type TuneResult,
} from "../../src/run/tune/search.js";
import { tune } from "../../src/run/tune/tune.js";
import { nicSettings, switchSettings } from "../../src/scenario/schema.js";
import { rl } from "../helpers/live.js";

function scenario(dir: string): string {
  const file = join(dir, "incast.yaml");
  writeFileSync(
    file,
    [
      "name: tune-incast",
      `topology: ${resolve("docs/examples/incast-3leaf.yaml")}`,
      "duration: 300us",
      "sample: 20us",
      "overrides: { hosts: { dcqcn: nvidia } }",
      "timeline:",
      "  - at: 10us",
      "    start: { type: incast, name: burst, to: h17, from: 8, size: 256KB }",
    ].join("\n"),
  );
  return file;
}

function result(
  name: string,
  goodputBps: number,
  p99FctNs: number,
  losslessDrops = 0,
  flowsCompleted = 1,
): TuneResult {
  const candidate: Candidate = { ...PRESETS[0]!, name, preset: false };
  return {
    candidate,
    goodputBps,
    deliveredBytes: goodputBps / 8e3,
    p99FctNs,
    p99AtLeast: flowsCompleted < 4,
    pauseFrames: 0,
    cnpSent: 0,
    losslessDrops,
    flowsCompleted,
    flowsTotal: 4,
  };
}

t.test("the search is seeded and stays in its ranges", async (t) => {
  const a = searchCandidates(7, 20);
  t.same(searchCandidates(7, 20), a, "same seed, same candidates");
  t.notSame(searchCandidates(8, 20), a, "another seed, others");
  for (const c of a) {
    t.ok(
      c.kmin >= 20_000 && c.kmin <= 800_000 && c.kmax > c.kmin && c.kmax <= 20 * c.kmin * 1.05,
      `${c.name} ECN`,
    );
    t.ok(c.pmax > 0 && c.pmax <= 1 && c.xoff >= 50_000 && c.xoff <= 8_000_000, `${c.name} Pmax, XOFF`);
    t.ok(
      c.dcqcn !== null &&
        c.dcqcn.g > 0 &&
        c.dcqcn.g < 0.07 &&
        c.dcqcn.rai >= 5e6 &&
        c.dcqcn.rpTimer >= 50_000,
    );
  }
  t.same(
    PRESETS.map((p) => p.name),
    ["aggressive", "balanced", "conservative"],
  );
});

t.test("Pareto front and the recommended point", async (t) => {
  const rs = [
    result("fast", 90e9, 100_000, 0, 4),
    result("dominated", 80e9, 150_000, 0, 4),
    result("big", 100e9, 300_000, 0, 4),
    result("knee", 97e9, 120_000, 0, 4),
    result("lossy", 120e9, 50_000, 3, 4),
  ];
  const front = paretoFront(rs);
  t.same(
    front.map((r) => r.candidate.name),
    ["fast", "knee", "big"],
    "ordered by p99; lossy and dominated out",
  );
  t.equal(recommend(front)?.candidate.name, "knee");
  t.equal(recommend([]), null);
  t.equal(rankingBasis(rs), "complete");
  t.equal(rankingWhy(rs, 1e6), "", "every trial completed: nothing to explain");
});

t.test("a trial with unfinished flows is never recommended over one that completed them all", async (t) => {
  // "quick" left a flow unfinished: its p99 is only a lower bound and looks better than it is.
  const rs = [result("quick", 150e9, 50_000, 0, 3), result("steady", 90e9, 400_000, 0, 4)];
  t.equal(rankingBasis(rs), "complete");
  t.same(
    paretoFront(rs).map((r) => r.candidate.name),
    ["steady"],
    "only trials that completed every flow are ranked",
  );
  t.equal(recommend(paretoFront(rs))?.candidate.name, "steady");
  t.match(rankingWhy(rs, 2e6), /1 trial left flows unfinished within 2ms: not ranked/);
});

t.test("no trial completed every flow: ranked by what they delivered", async (t) => {
  const rs = [
    result("short", 60e9, 90_000, 0, 2),
    result("most", 80e9, 300_000, 0, 1),
    result("lossy", 120e9, 50_000, 2, 3),
  ];
  t.equal(rankingBasis(rs), "delivered");
  t.equal(recommend(paretoFront(rs))?.candidate.name, "most", "the most bytes delivered, lossy excluded");
  t.match(rankingWhy(rs, 8e6), /no trial completed all its flows within 8ms: ranked by bytes delivered/);
});

t.test("no trial completed a single flow: no recommendation, and the advice to run longer", async (t) => {
  const rs = [result("a", 97e9, 2e6, 0, 0), result("b", 95e9, 2e6, 0, 0)];
  t.equal(rankingBasis(rs), "none");
  t.same(paretoFront(rs), []);
  t.equal(recommend(paretoFront(rs)), null);
  t.match(rankingWhy(rs, 2e6), /nothing to recommend; raise --duration/);
});

t.test("the snippet is a switch profile and host settings the schema accepts", async (t) => {
  const c = searchCandidates(1, 1)[0]!;
  const text = profileSnippet(result("x", 1e9, 1000), "s.yaml");
  const withDcqcn = profileSnippet({ ...result("x", 1e9, 1000), candidate: c }, "s.yaml");
  for (const snippet of [text, withDcqcn]) {
    const doc = parse(snippet) as { profiles: { tuned: unknown }; hosts?: unknown };
    t.ok(
      switchSettings.safeParse(doc.profiles.tuned).success,
      `profile parses: ${JSON.stringify(doc.profiles.tuned)}`,
    );
    if (doc.hosts !== undefined)
      t.ok(nicSettings.safeParse(doc.hosts).success, `hosts parse: ${JSON.stringify(doc.hosts)}`);
  }
  const tuned = switchSettings.parse((parse(withDcqcn) as { profiles: { tuned: unknown } }).profiles.tuned);
  t.equal(tuned.pfc?.xoff, c.xoff, "the XOFF written is the candidate's");
});

t.test("tune in this thread: presets first, then the searched trials", async (t) => {
  const file = scenario(t.testdir({}));
  const seen: string[] = [];
  const out = await tune({
    scenarioFile: file,
    trials: 1,
    seed: 1,
    jobs: 1,
    onTrial: (_d, _n, r) => seen.push(r.candidate.name),
  });
  t.same(seen, ["aggressive", "balanced", "conservative", "t1"]);
  t.same(
    out.results.map((r) => r.candidate.name),
    seen,
  );
  t.ok(
    out.results.every((r) => r.goodputBps > 0 && r.p99FctNs > 0),
    "every trial moved data",
  );
  t.ok(out.front.length >= 1 && out.recommended !== null && out.front.includes(out.recommended));
});

t.test("rocelab tune over two worker threads writes the plot and the snippet", async (t) => {
  const dir = t.testdir({});
  const file = scenario(dir);
  const out = join(dir, "out");
  const r = await rl([
    "tune",
    file,
    "--trials",
    "1",
    "--jobs",
    "2",
    "--duration",
    "200us",
    "--out",
    out,
    "--quiet",
  ]);
  t.equal(r.exitCode, 0, r.stderr);
  const json = JSON.parse(readFileSync(join(out, "tune.json"), "utf8")) as {
    results: TuneResult[];
    durationNs: number;
  };
  t.equal(json.results.length, 4);
  t.equal(json.durationNs, 200_000);
  const svg = readFileSync(join(out, "pareto.svg"), "utf8");
  for (const p of ["aggressive", "balanced", "conservative"]) t.match(svg, p, `${p} is marked on the plot`);
  t.ok(existsSync(join(out, "recommended.snippet")));
  t.match(r.stdout, /profiles:\n {2}tuned:\n/);
});

t.test("rocelab tune where no flow can finish recommends nothing and says to run longer", async (t) => {
  const dir = t.testdir({});
  const file = scenario(dir);
  const out = join(dir, "out");
  // The incast starts at 10 µs; 256 KB at 100 Gb/s takes over 20 µs: at 25 µs no flow has completed.
  const r = await rl([
    "tune",
    file,
    "--trials",
    "0",
    "--jobs",
    "1",
    "--duration",
    "25us",
    "--out",
    out,
    "--quiet",
  ]);
  t.equal(r.exitCode, 0, r.stderr);
  t.match(r.stdout, /no trial completed a single flow within 25us: nothing to recommend; raise --duration/);
  t.notMatch(r.stdout, /recommended/, "no trial is marked recommended");
  t.notOk(existsSync(join(out, "recommended.snippet")), "no snippet written");
  t.match(r.stdout, /0\/8 flows \(unfinished\)/);
});
