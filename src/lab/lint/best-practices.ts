// `rocelab lint`: seed 002's best practices for a lossless RoCE fabric as rules over the configuration
// every device would run with (switch tunables and NIC configs resolved through the settings layers, as a
// run resolves them). Each rule has an id, a severity, an explanation and a fix; a finding says where
// (the switch, port or queue; the host) and with which numbers.
//
// The rules live in rules-*.ts by topic (thresholds, QoS maps, control loops); this file resolves a
// topology or scenario and runs them.

import type { NicConfig } from "../../nic/config.js";
import type { SwitchConfig } from "../../switch/config.js";
import { hostAddress, planAddresses } from "../address-plan.js";
import { buildNicConfig } from "../nic-config.js";
import type { Scenario } from "../scenario.js";
import { NO_CHANGE, type SettingsChange, SettingsLayers } from "../settings-layers.js";
import { buildSwitchConfig } from "../switch-config.js";
import { linkAt, NodeKind, type Topology } from "../topology.js";
import { CONTROL_RULES } from "./rules-control.js";
import { QOS_RULES } from "./rules-qos.js";
import { THRESHOLD_RULES } from "./rules-thresholds.js";

export const Severity = { Error: "error", Warning: "warning", Info: "info" } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export interface Finding {
  readonly id: string;
  readonly severity: Severity;
  /** Where: `switches.leaf1.ecn.queues.3`, `hosts.h1.dcqcn`, with a `timeline[i]` prefix after a set step. */
  readonly path: string;
  readonly message: string;
  readonly fix: string;
}

/** The configuration a lab runs with, resolved. */
export interface ResolvedLab {
  readonly topology: Topology;
  readonly switches: ReadonlyMap<string, SwitchConfig>;
  readonly hosts: ReadonlyMap<string, NicConfig>;
}

export interface Rule {
  readonly id: string;
  readonly severity: Severity;
  readonly title: string;
  /** Why it matters, with the source of the practice. */
  readonly explanation: string;
  /** Findings of this rule (a rule may lower the severity of one finding: see `severity` on the finding). */
  check(lab: ResolvedLab): RuleFinding[];
}

/** What a rule reports: its own id and default severity are filled in. */
export interface RuleFinding {
  readonly path: string;
  readonly message: string;
  readonly fix: string;
  readonly severity?: Severity;
}

export const RULES: readonly Rule[] = [...THRESHOLD_RULES, ...QOS_RULES, ...CONTROL_RULES];

/** Resolves every device's configuration under `change` on top of the topology. */
export function resolveLab(topology: Topology, ...changes: readonly SettingsChange[]): ResolvedLab {
  const layers = new SettingsLayers(topology, ...changes);
  const plan = planAddresses(topology);
  const switches = new Map<string, SwitchConfig>();
  const hosts = new Map<string, NicConfig>();
  for (const n of topology.nodes) {
    if (n.kind === NodeKind.Switch) {
      switches.set(n.name, buildSwitchConfig(topology, plan, [], n.name, layers.switchTunables(n.name)));
    } else {
      const link = linkAt(topology, n.name, 1)?.link;
      if (link === undefined) continue;
      const placement = { host: n.name, address: hostAddress(plan, n.name), link, mtu: topology.mtu };
      hosts.set(n.name, buildNicConfig(placement, layers.hostSettings(), { answerArp: true }));
    }
  }
  return { topology, switches, hosts };
}

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * Runs every rule; findings sorted by severity, then rule, then path. The same finding on several switches
 * is reported once, its path naming them all (`switches.{leaf1,leaf2}.pfc`).
 */
export function bestPracticeFindings(lab: ResolvedLab, prefix = ""): Finding[] {
  const groups = new Map<string, { finding: Finding; nodes: string[]; rest: string }>();
  for (const rule of RULES) {
    for (const f of rule.check(lab)) {
      const finding: Finding = {
        id: rule.id,
        severity: f.severity ?? rule.severity,
        path: f.path,
        message: f.message,
        fix: f.fix,
      };
      const m = /^switches\.([^.]+)(.*)$/.exec(f.path);
      const rest = m ? m[2]! : f.path;
      const k = `${finding.id}\0${finding.severity}\0${finding.message}\0${finding.fix}\0${m ? rest : `=${f.path}`}`;
      const g = groups.get(k);
      if (g !== undefined && m) g.nodes.push(m[1]!);
      else groups.set(k, { finding, nodes: m ? [m[1]!] : [], rest });
    }
  }
  const out = [...groups.values()].map(({ finding, nodes, rest }) => ({
    ...finding,
    path: prefix + (nodes.length > 1 ? `switches.{${nodes.join(",")}}${rest}` : finding.path),
  }));
  return out.sort(
    (a, b) =>
      ORDER[a.severity] - ORDER[b.severity] || a.id.localeCompare(b.id) || a.path.localeCompare(b.path),
  );
}

/** A topology as `rocelab up` would run it. */
export function lintTopology(topology: Topology): Finding[] {
  return bestPracticeFindings(resolveLab(topology, NO_CHANGE));
}

/**
 * A scenario: its start (topology and overrides), then the state after each `set` step of its timeline,
 * reporting there only what that step brought in.
 */
export function lintScenario(sc: Scenario): Finding[] {
  const changes: SettingsChange[] = [sc.overrides];
  const first = bestPracticeFindings(resolveLab(sc.topology, ...changes));
  const out = [...first];
  const seen = new Set(first.map(key));
  sc.timeline.forEach((step, i) => {
    if (step.kind !== "set") return;
    changes.push(step.change);
    for (const f of bestPracticeFindings(resolveLab(sc.topology, ...changes), `timeline[${i}]: `)) {
      const k = key({ ...f, path: f.path.slice(`timeline[${i}]: `.length) });
      if (!seen.has(k)) out.push(f);
    }
  });
  return out;
}

function key(f: Finding): string {
  return `${f.id} ${f.path} ${f.message}`;
}

/** Exit status of `rocelab lint`: 1 if any finding is an error. */
export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === Severity.Error);
}
