// Seeded chaos: a scenario of mixed traffic with random failures and settings changes in the middle of it,
// for the hardening checks (`rocelab chaos`, test/lab/chaos.test.ts, docs/reliability.md).
//
// What it throws at the fabric, from one seed:
//   - traffic: a permutation of large WRITEs (elephants) and a web-search-like mix (mice), both lossless;
//   - link flaps on switch-to-switch links (down for a while, then up again), never two at once on the same
//     switch pair, so the fabric stays connected and ECMP routes around the failure;
//   - settings changes: every switch's profile (ECN and PFC thresholds) switched between the three presets,
//     and the hosts' DCQCN rate timer changed, while traffic flows.
// What a correct fabric does with it (the checks): no lossless drop except at a failed link (packets queued
// to a port that went down, or caught with no route while routes converge), every message completes, and
// at the end nothing is left queued, paused or held in a buffer.

import { createRandom } from "../device/prng.js";
import type { Report } from "../report/report.js";
import type { ScenarioFile, StepSettings } from "../scenario/schema.js";
import { NodeKind, type Topology } from "../scenario/topology.js";

export interface ChaosOptions {
  readonly seed: number;
  /** Emulated length of the traffic, ns (failures happen inside it; the scenario runs 10× longer to drain). */
  readonly trafficNs: number;
  /** Link flaps. */
  readonly flaps: number;
  /** Settings changes. */
  readonly changes: number;
  /** Bytes of each elephant WRITE. */
  readonly elephantBytes?: number;
}

const PROFILES = ["aggressive", "balanced", "conservative"] as const;

/** A chaos scenario on `topology` (which must have switch-to-switch links to flap). */
export function chaosScenario(topology: Topology, topologyRef: string, opts: ChaosOptions): ScenarioFile {
  const rnd = createRandom(opts.seed, "chaos");
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd.next() * list.length)]!;
  const isSwitch = (n: string) => topology.nodes.find((x) => x.name === n)?.kind === NodeKind.Switch;
  const fabricLinks = topology.links.filter((l) => isSwitch(l.a.node) && isSwitch(l.b.node));
  if (fabricLinks.length === 0) throw new Error("chaos needs a topology with switch-to-switch links to flap");
  const us = (ns: number) => Math.round(ns / 1000) * 1000;
  const timeline: StepSettings[] = [
    { at: 0, start: { type: "permutation", size: opts.elephantBytes ?? 2_000_000, name: "elephants" } },
    {
      at: 0,
      start: {
        type: "mix",
        load: 0.2,
        sizes: "websearch",
        duration: us(opts.trafficNs),
        name: "mice",
      },
    },
  ];
  // Flaps: one at a time in the whole fabric (so a fabric with two paths everywhere stays connected), flap i
  // inside the i-th slice of the traffic time, down for 20-60 % of the slice.
  const slot = opts.trafficNs / Math.max(1, opts.flaps);
  for (let i = 0; i < opts.flaps; i++) {
    const link = pick(fabricLinks);
    const from = i * slot + rnd.next() * 0.3 * slot;
    const down = (0.2 + 0.4 * rnd.next()) * slot;
    const end = `${link.a.node}:eth${link.a.port}`;
    timeline.push({ at: us(from), link: { down: end } });
    timeline.push({ at: us(from + down), link: { up: end } });
  }
  for (let i = 0; i < opts.changes; i++) {
    const at = us(Math.floor(rnd.next() * opts.trafficNs));
    if (rnd.next() < 0.5) {
      timeline.push({ at, set: { switches: { profile: pick(PROFILES) } } });
    } else {
      timeline.push({ at, set: { hosts: { dcqcn: { rpTimer: pick([55_000, 100_000, 300_000]) } } } });
    }
  }
  timeline.sort((a, b) => a.at - b.at);
  return {
    name: `chaos-${opts.seed}`,
    description: `seeded chaos (seed ${opts.seed}): ${opts.flaps} link flaps and ${opts.changes} settings changes during mixed lossless traffic`,
    topology: topologyRef,
    seed: opts.seed,
    // Long enough for every message to finish: a web-search mix has 30 MB tails, and a packet lost at a
    // failed link waits for the 4 ms retransmission timeout.
    duration: us(opts.trafficNs * 10),
    timeline,
  };
}

export interface KillPlan {
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly atNs: number;
  /** When it is restarted; null: it stays dead. */
  readonly restartAtNs: number | null;
}

/**
 * Which devices die when: kill i inside the i-th slice of the traffic time, restarted after 20-40 % of the
 * slice. Spines (the fabric stays connected without one) first, then hosts; never the same node twice.
 */
export function planKills(
  topology: Topology,
  opts: Pick<ChaosOptions, "seed" | "trafficNs"> & { readonly kills: number; readonly restart?: boolean },
): KillPlan[] {
  const rnd = createRandom(opts.seed, "live-chaos-kills");
  const switches = topology.nodes.filter((n) => n.kind === NodeKind.Switch);
  // A spine: a switch without hosts (removing it leaves every host reachable when there are two).
  const hostsOf = (name: string) =>
    topology.links.filter(
      (l) =>
        (l.a.node === name && topology.nodes.find((n) => n.name === l.b.node)?.kind === NodeKind.Host) ||
        (l.b.node === name && topology.nodes.find((n) => n.name === l.a.node)?.kind === NodeKind.Host),
    ).length;
  const spines = switches.filter((s) => hostsOf(s.name) === 0).map((s) => s.name);
  const hosts = topology.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
  const shuffled = (list: string[]) => {
    const a = [...list];
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rnd.next() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  const order = [
    ...shuffled(spines).map((n) => ({ n, kind: "switch" as const })),
    ...shuffled(hosts).map((n) => ({ n, kind: "nic" as const })),
  ];
  const slot = opts.trafficNs / Math.max(1, opts.kills);
  const us = (ns: number) => Math.round(ns / 1000) * 1000;
  return order.slice(0, opts.kills).map(({ n, kind }, i) => {
    const at = i * slot + (0.1 + 0.3 * rnd.next()) * slot;
    return {
      node: n,
      kind,
      atNs: us(at),
      restartAtNs: opts.restart === false ? null : us(at + (0.2 + 0.2 * rnd.next()) * slot),
    };
  });
}

/**
 * The simulator's device kills: `inject: { kill }` / `{ restart }` steps for the plan, added to a chaos
 * scenario (the live lab SIGKILLs its processes from outside instead: live-chaos.ts). A killed switch
 * keeps its links up, as a crashed process does: its neighbours go on sending into it until it restarts.
 */
export function withKillSteps(file: ScenarioFile, plans: readonly KillPlan[]): ScenarioFile {
  const steps: StepSettings[] = [];
  for (const p of plans) {
    steps.push({ at: p.atNs, inject: { kill: p.node } });
    if (p.restartAtNs !== null) steps.push({ at: p.restartAtNs, inject: { restart: p.node } });
  }
  const timeline = [...(file.timeline ?? []), ...steps].sort((a, b) => a.at - b.at);
  const kills = plans.length;
  return {
    ...file,
    description: `${file.description}; ${kills} device kill${kills === 1 ? "" : "s"} (${plans.map((p) => p.node).join(", ")})`,
    timeline,
  };
}

export interface ChaosVerdict {
  /** What a correct fabric would not have done; empty when it survived. */
  readonly problems: readonly string[];
  readonly flowsCompleted: number;
  readonly flowsTotal: number;
  readonly losslessDrops: number;
  /** Drops at failed links (queued to a port that went down, or no route while routes converged). */
  readonly dropsAtFailedLinks: number;
  readonly retransmits: number;
}

/** The checks of a chaos run, from its report. */
export function judgeChaos(report: Report): ChaosVerdict {
  const problems: string[] = [];
  const s = report.summary;
  if (s.flowsCompleted !== s.flowsTotal)
    problems.push(`${s.flowsTotal - s.flowsCompleted} of ${s.flowsTotal} messages did not complete`);
  let atFailedLinks = 0;
  for (const [name, d] of Object.entries(report.devices)) {
    if (d.kind !== "switch") continue;
    const c = d.counters;
    const failed = (c.drop_link_down ?? 0) + (c.drop_no_route ?? 0);
    atFailedLinks += failed;
    if ((c.dropped_lossless ?? 0) > failed)
      problems.push(`${name}: ${c.dropped_lossless} lossless drops, only ${failed} of them at a failed link`);
    if ((c.drop_headroom_exhausted ?? 0) > 0)
      problems.push(`${name}: ${c.drop_headroom_exhausted} packets overflowed the PFC headroom`);
    if ((c.buffer_shared_used_bytes ?? 0) !== 0 || (c.buffer_headroom_used_bytes ?? 0) !== 0)
      problems.push(
        `${name}: ${c.buffer_shared_used_bytes} shared and ${c.buffer_headroom_used_bytes} headroom bytes still held at the end`,
      );
    for (const [port, pc] of Object.entries(d.ports))
      for (const [k, v] of Object.entries(pc))
        if (/^pg\d_xoff$/.test(k) && v !== 0)
          problems.push(`${name}:${port}: ${k} still asserted at the end`);
  }
  return {
    problems,
    flowsCompleted: s.flowsCompleted,
    flowsTotal: s.flowsTotal,
    losslessDrops: s.drops.lossless,
    dropsAtFailedLinks: atFailedLinks,
    retransmits: s.retransmits,
  };
}
