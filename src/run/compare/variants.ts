// The runs of a comparison: each variant (a scenario file, and a value of the settings sweep if any) once per
// seed. A seed changes what a real network varies from one run to the next (docs/compare.md):
//   - the scenario's seed: the switches' WRED/ECN marking draws, the NICs' random choices and the
//     workloads' random draws (destinations, sizes and Poisson arrival times of a mix, permutations);
//   - start jitter: every message posted up to `jitterNs` after its pattern's time (workload `jitter`);
//   - ECMP hash seeds: every switch gets its own seed (`ecmp.seed`), as switches of a real fabric have.
// Every variant runs with the same seeds, so the differences between variants can be paired by seed.

import { parse } from "yaml";
import { createRandom } from "../../device/prng.js";
import type { Step } from "../../scenario/action.js";
import type { Scenario } from "../../scenario/scenario.js";
import { type NicSettings, nicSettings, type SwitchSettings, switchSettings } from "../../scenario/schema.js";
import { NodeKind } from "../../scenario/topology.js";
import type { MetricOptions } from "./metrics.js";

/** One value of a settings sweep: an extra settings layer on every switch or every host. */
export interface SweepValue {
  readonly label: string;
  readonly target: "switches" | "hosts";
  readonly settings: SwitchSettings | NicSettings;
}

export interface Variant {
  readonly label: string;
  readonly file: string;
  readonly sweep?: SweepValue;
}

/** What a seed varies (all on by default). */
export interface SeedPlan {
  readonly seeds: readonly number[];
  /** Start jitter per message, ns; 0: none (unless the scenario sets its own). */
  readonly jitterNs: number;
  /** A per-switch ECMP hash seed derived from the run's seed. */
  readonly varyEcmp: boolean;
}

/** One run: serialisable, so a worker thread can carry it out. */
export interface CompareJob {
  readonly variant: Variant;
  readonly seed: number;
  readonly jitterNs: number;
  readonly varyEcmp: boolean;
  readonly durationNs?: number;
  readonly metrics: MetricOptions;
}

export class SweepError extends Error {
  override readonly name = "SweepError";
}

/** Splits "a,b,{x: 1, y: 2}" at the commas outside brackets and braces. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * `switches.ecn.ai.mode=off,local,central` or `hosts.dcqcn.g=0.004,0.06`: one settings layer per value,
 * each checked against the switch or NIC settings schema (a wrong path or value is refused here, naming
 * the option, the path and what is allowed).
 */
export function parseSweep(spec: string): SweepValue[] {
  const eq = spec.indexOf("=");
  const path = (eq < 0 ? spec : spec.slice(0, eq)).trim().split(".");
  const [target, ...keys] = path;
  if (eq < 0 || (target !== "switches" && target !== "hosts") || keys.length === 0 || keys.includes(""))
    throw new SweepError(
      `--sweep "${spec}": expected switches.PATH=V1,V2,... or hosts.PATH=V1,V2,... (e.g. switches.ecn.ai.mode=off,local)`,
    );
  const texts = splitTopLevel(spec.slice(eq + 1));
  if (texts.length < 1) throw new SweepError(`--sweep "${spec}": no values after "="`);
  return texts.map((text) => {
    let value: unknown = parse(text);
    for (const k of [...keys].reverse()) value = { [k]: value };
    const schema = target === "switches" ? switchSettings : nicSettings;
    const r = schema.safeParse(value);
    if (!r.success) {
      const why = r.error.issues.map((i) => `${[target, ...i.path].join(".")}: ${i.message}`).join("; ");
      throw new SweepError(`--sweep ${path.join(".")}=${text}: ${why}`);
    }
    return { label: `${keys.join(".")}=${text}`, target, settings: r.data };
  });
}

/** The scenario as a job runs it: its seed, the variant's layer, start jitter and ECMP seeds. */
export function applyJob(base: Scenario, job: CompareJob): Scenario {
  const sweep = job.variant.sweep;
  let overrides = base.overrides;
  if (sweep?.target === "switches")
    overrides = { ...overrides, switches: [...overrides.switches, sweep.settings as SwitchSettings] };
  if (sweep?.target === "hosts")
    overrides = { ...overrides, hosts: [...overrides.hosts, sweep.settings as NicSettings] };
  if (job.varyEcmp) {
    const nodes: Record<string, readonly SwitchSettings[]> = { ...overrides.nodes };
    for (const n of base.topology.nodes) {
      if (n.kind !== NodeKind.Switch) continue;
      const seed = Math.floor(createRandom(job.seed, `compare:ecmp:${n.name}`).next() * 0xffff_ffff);
      nodes[n.name] = [...(nodes[n.name] ?? []), { ecmp: { seed } }];
    }
    overrides = { ...overrides, nodes };
  }
  const timeline: Step[] = base.timeline.map((s) =>
    job.jitterNs > 0 && s.action.kind === "start" && s.action.workload.startJitterNs === undefined
      ? { ...s, action: { ...s.action, workload: { ...s.action.workload, startJitterNs: job.jitterNs } } }
      : s,
  );
  return {
    ...base,
    seed: job.seed,
    overrides,
    timeline,
    ...(job.durationNs !== undefined ? { durationNs: job.durationNs } : {}),
  };
}

/** Every run of the comparison, variant by variant, seed by seed. */
export function planJobs(
  variants: readonly Variant[],
  plan: SeedPlan,
  metrics: MetricOptions,
  durationNs?: number,
): CompareJob[] {
  return variants.flatMap((variant) =>
    plan.seeds.map((seed) => ({
      variant,
      seed,
      jitterNs: plan.jitterNs,
      varyEcmp: plan.varyEcmp,
      ...(durationNs !== undefined ? { durationNs } : {}),
      metrics,
    })),
  );
}
