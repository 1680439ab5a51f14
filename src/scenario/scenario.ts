// Scenarios: a topology, overrides, a timeline and a duration. Loaded and checked here, then run by either
// runtime (run-sim.ts, and the live lab) into the same report format.

import { basename, dirname, extname, resolve } from "node:path";
import { formatDuration } from "../device/units.js";
import {
  type RdmaOp,
  SIZE_DISTRIBUTIONS,
  type SizeDistribution,
  type WorkloadSpec,
} from "../nic/workloads.js";
import type { Step } from "./action.js";
import { ConfigError, type ConfigProblem, SourceDocument } from "./config-error.js";
import { incastProblem } from "./incast-check.js";
import { resolveLab } from "./resolved-lab.js";
import {
  type ControllerSettings,
  type ScenarioFile,
  type SettingsChangeSettings,
  type SwitchSettings,
  scenarioFile,
  type TopologyFile,
  type WorkloadSettings,
} from "./schema.js";
import { NO_CHANGE, type SettingsChange } from "./settings-layers.js";
import { runtimeRouteProblem } from "./static-routes.js";
import { defaultTopology, hosts, linkAt, NodeKind, resolveTopology, type Topology } from "./topology.js";
import { loadTopology } from "./topology-file.js";
import { refuseInvalid } from "./validate.js";

/** Where a scenario writes a switch's settings: its overrides, else its inline topology. */
const SCENARIO_PLACES = (node: string | undefined): string[][] => [
  ...(node ? [["overrides", "nodes", node]] : []),
  ["overrides", "switches"],
  ...(node ? [["topology", "nodes", node]] : []),
  ["topology", "defaults", "switch"],
];

export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly file: string;
  readonly seed: number;
  readonly durationNs: number;
  readonly sampleNs: number;
  readonly topology: Topology;
  /**
   * Where the topology came from, for runtimes that load it themselves (the live supervisor): "default",
   * an absolute file path, or the topology written inline in the scenario.
   */
  readonly topologySource: string | TopologyFile;
  readonly overrides: SettingsChange;
  /** Lab-level controllers to run (none by default). */
  readonly controller?: ControllerSettings;
  readonly timeline: readonly Step[];
}

export function loadScenario(file: string): Scenario {
  const doc = SourceDocument.read(file);
  doc.expectKind("scenario");
  return resolveScenario(doc.parse(scenarioFile), file, doc);
}

/** Resolves a parsed scenario (from a file, or built in code with `doc` null). */
export function resolveScenario(parsed: ScenarioFile, file: string, doc: SourceDocument | null): Scenario {
  const problems: ConfigProblem[] = [];
  const problem = (path: (string | number)[], message: string): void => {
    problems.push(doc ? doc.problem(path, message) : { path: path.join("."), message });
  };
  let topology: Topology;
  const t = parsed.topology ?? "default";
  if (typeof t === "string") {
    topology = t === "default" ? defaultTopology() : loadTopology(resolve(dirname(file), t));
  } else {
    topology = resolveTopology(t, file, doc, basename(file, extname(file)), ["topology"]);
  }
  const hostNames = hosts(topology).map((h) => h.name);
  const kinds = new Map(topology.nodes.map((n) => [n.name, n.kind]));
  const checkHost = (name: string, path: (string | number)[]): void => {
    if (kinds.get(name) !== NodeKind.Host) {
      problem(path, `"${name}" is not a host of topology ${topology.name} (hosts: ${hostNames.join(", ")})`);
    }
  };
  const checkSwitches = (
    nodes: Record<string, SwitchSettings> | undefined,
    path: (string | number)[],
  ): void => {
    for (const name of Object.keys(nodes ?? {})) {
      if (kinds.get(name) !== NodeKind.Switch)
        problem([...path, name], `"${name}" is not a switch of the topology`);
    }
  };
  const change = (c: SettingsChangeSettings): SettingsChange => ({
    switches: c.switches ? [c.switches] : [],
    nodes: Object.fromEntries(Object.entries(c.nodes ?? {}).map(([k, v]) => [k, [v]])),
    hosts: c.hosts ? [c.hosts] : [],
  });

  checkSwitches(parsed.overrides?.nodes, ["overrides", "nodes"]);
  const timeline: Step[] = [];
  const names = new Set<string>();
  parsed.timeline.forEach((s, i) => {
    const at = ["timeline", i];
    if (s.at > parsed.duration)
      problem(
        [...at, "at"],
        `step at ${formatDuration(s.at)} is after the end of the run (duration ${formatDuration(parsed.duration)})`,
      );
    if ("start" in s) {
      const w = resolveWorkload(s.start, i, hostNames, parsed.duration - s.at, topology);
      if (names.has(w.name)) problem([...at, "start", "name"], `workload name "${w.name}" is used twice`);
      names.add(w.name);
      for (const [key, value] of Object.entries(s.start)) {
        if (key === "to" || (key === "from" && typeof value === "string"))
          checkHost(value as string, [...at, "start", key]);
        if ((key === "from" || key === "hosts") && Array.isArray(value)) {
          for (const [j, h] of value.entries()) checkHost(h as string, [...at, "start", key, j]);
        }
      }
      if (s.start.type === "incast" && Array.isArray(s.start.from) && s.start.from.includes(s.start.to)) {
        problem([...at, "start", "from"], `${s.start.to} cannot send to itself`);
      }
      if (s.start.type === "incast" && typeof s.start.from === "number" && hostNames.includes(s.start.to)) {
        const why = incastProblem(hostNames, s.start.to, s.start.from);
        if (why) problem([...at, "start", "from"], why);
      }
      timeline.push({ atNs: s.at, action: { kind: "start", workload: w } });
    } else if ("set" in s) {
      checkSwitches(s.set.nodes, [...at, "set", "nodes"]);
      timeline.push({ atNs: s.at, action: { kind: "set", change: change(s.set) } });
    } else if ("link" in s) {
      const up = "up" in s.link;
      const text = "up" in s.link ? s.link.up : s.link.down;
      const [node, iface] = text.split(":") as [string, string];
      const port = Number(iface.slice(3));
      if (linkAt(topology, node, port) === null)
        problem([...at, "link"], `${text} is not connected in the topology`);
      timeline.push({ atNs: s.at, action: { kind: "link", node, port, up } });
    } else if ("inject" in s) {
      const i = s.inject;
      if ("kill" in i || "restart" in i) {
        const node = "kill" in i ? i.kill : i.restart;
        if (!topology.nodes.some((n) => n.name === node))
          problem([...at, "inject", "kill" in i ? "kill" : "restart"], `no node ${node} in the topology`);
        timeline.push({ atNs: s.at, action: { kind: "device", node, running: "restart" in i } });
        return;
      }
      if ("route" in i || "withdrawRoute" in i) {
        const r = "route" in i ? i.route : i.withdrawRoute;
        const via = "route" in i ? i.route.via : null;
        const why = runtimeRouteProblem(topology, r.node, r.to, via);
        if (why !== null) problem([...at, "inject", "route" in i ? "route" : "withdrawRoute"], why);
        timeline.push({ atNs: s.at, action: { kind: "route", node: r.node, to: r.to, via } });
        return;
      }
      const host = "pfcStorm" in i ? i.pfcStorm : i.stopPfcStorm;
      checkHost(host, [...at, "inject", "pfcStorm" in i ? "pfcStorm" : "stopPfcStorm"]);
      if ("pfcStorm" in i) {
        const priority = i.priority ?? 3;
        const storm = { kind: "pfc-storm", host, priority } as const;
        timeline.push({
          atNs: s.at,
          action: i.interval !== undefined ? { ...storm, intervalNs: i.interval } : storm,
        });
      } else timeline.push({ atNs: s.at, action: { kind: "pfc-storm", host, priority: null } });
    } else {
      timeline.push({ atNs: s.at, action: { kind: "stop", workloads: s.stop } });
    }
  });
  for (const [i, { action: s }] of timeline.entries()) {
    if (s.kind === "stop" && s.workloads !== "all") {
      for (const name of s.workloads)
        if (!names.has(name)) problem(["timeline", i, "stop"], `no workload named "${name}"`);
    }
  }
  if (problems.length > 0) throw new ConfigError(file, problems);
  const overrides = parsed.overrides ? change(parsed.overrides) : NO_CHANGE;
  // A topology file's own errors were located in it by loadTopology; the rest (overrides, inline
  // topology) in this file.
  refuseInvalid(resolveLab(topology, [overrides]), file, doc, SCENARIO_PLACES);
  timeline.sort((a, b) => a.atNs - b.atNs);
  return {
    name: parsed.name ?? basename(file, extname(file)),
    description: parsed.description ?? "",
    file,
    seed: parsed.seed ?? 1,
    durationNs: parsed.duration,
    sampleNs: parsed.sample ?? Math.max(1000, Math.round(parsed.duration / 1000)),
    topology,
    topologySource: typeof t === "string" ? (t === "default" ? "default" : resolve(dirname(file), t)) : t,
    overrides,
    ...(parsed.controller ? { controller: parsed.controller } : {}),
    timeline,
  };
}

function resolveWorkload(
  w: WorkloadSettings,
  index: number,
  hostNames: readonly string[],
  remainingNs: number,
  topology: Topology,
): WorkloadSpec {
  const common = {
    name: w.name ?? `${w.type}-${index}`,
    op: (w.op ?? "write") as RdmaOp,
    qps: w.qps ?? 1,
    repeat: w.repeat ?? 1,
    intervalNs: w.interval ?? 0,
    ...(w.qpPerMessage === true ? { qpPerMessage: true } : {}),
    ...(w.jitter !== undefined && w.jitter > 0 ? { startJitterNs: w.jitter } : {}),
    ...(w.transport !== undefined ? { transport: w.transport } : {}),
    ...(w.onError !== undefined ? { onError: w.onError } : {}),
    ...(w.connect !== undefined ? { connect: w.connect } : {}),
  };
  const pick = (h: "all" | readonly string[] | undefined): readonly string[] =>
    h === undefined || h === "all" ? hostNames : h;
  switch (w.type) {
    case "incast": {
      const from = typeof w.from === "number" ? hostNames.filter((h) => h !== w.to).slice(0, w.from) : w.from;
      return { ...common, type: "incast", to: w.to, from, bytes: w.size };
    }
    case "flow":
      return { ...common, type: "flow", from: w.from, to: w.to, bytes: w.size };
    case "permutation":
      return { ...common, type: "permutation", hosts: pick(w.hosts), bytes: w.size };
    case "all-to-all":
      return { ...common, type: "all-to-all", hosts: pick(w.hosts), bytes: w.size };
    case "all-reduce":
      return { ...common, type: "all-reduce", hosts: pick(w.hosts), bytes: w.size };
    case "mix": {
      const sizes: SizeDistribution =
        typeof w.sizes === "string" ? SIZE_DISTRIBUTIONS[w.sizes]! : { name: "custom", points: w.sizes.cdf };
      const rates = pick(w.hosts).map((h) => linkAt(topology, h, 1)?.link.rateBps ?? 0);
      return {
        ...common,
        type: "mix",
        hosts: pick(w.hosts),
        load: w.load,
        linkRateBps: Math.min(...rates),
        durationNs: w.duration ?? remainingNs,
        sizes,
      };
    }
  }
}
