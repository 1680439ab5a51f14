// Lab actions in virtual time: one handler per kind of scenario/action.ts, carried out on a SimFabric at
// the simulator's current time. Both the paced simulated lab the TUI drives (sim-lab.ts) and a scenario run
// (run/run-sim.ts) carry out their actions here, so an action means the same in both.

import { createRandom } from "../../device/prng.js";
import type { HostStack } from "../../nic/host-stack.js";
import type { Nic } from "../../nic/nic.js";
import { generateFlows } from "../../nic/workloads.js";
import {
  type ActionOf,
  type ActionResult,
  incastWorkload,
  type LabAction,
  type LabActionKind,
} from "../../scenario/action.js";
import { hostAddress } from "../../scenario/address-plan.js";
import { hosts } from "../../scenario/topology.js";
import type { FlowDriver } from "../flow-driver.js";
import { type LabNow, refuseUnavailableHosts } from "../host-availability.js";
import { workloadStream } from "../timeline.js";
import type { SimFabric } from "./sim-fabric.js";

/** What the handlers act on. */
export interface SimActionTarget {
  readonly fabric: SimFabric;
  readonly nics: ReadonlyMap<string, Nic>;
  readonly driver: FlowDriver;
  /** The run's seed: workloads draw their flows from streams of it. */
  readonly seed: number;
  /** Hosts' kernel stacks (the paced lab has them; a scenario run has none, and refuses `udp`). */
  readonly kernels?: ReadonlyMap<string, HostStack>;
  /** Devices that are not running take no commands (a killed NIC posts nothing). */
  readonly running?: (node: string) => boolean;
  /** The paced lab's devices and links now: workloads from or to a host that is not there are refused. */
  readonly lab?: LabNow;
  /** Changes the pacing of a paced lab (a scenario run has none, and refuses `dilation`). */
  readonly setDilation?: (dilation: number) => void;
}

type Handlers = {
  readonly [K in LabActionKind]: (t: SimActions, a: ActionOf<K>, now: number) => ActionResult | undefined;
};

/** Throws a refusal with the device's reason when a device command fails. */
function check(node: string, reply: { ok: true } | { ok: false; error: string }): void {
  if (!reply.ok) throw new Error(`${node}: ${reply.error}`);
}

const HANDLERS: Handlers = {
  start: (t, a, now) => {
    const random = createRandom(t.target.seed, a.stream ?? workloadStream(a.workload.name));
    const flows = generateFlows(a.workload, a.at ?? now, random, t.target.driver.newId);
    if (t.target.lab) refuseUnavailableHosts(t.target.fabric.topo, a.workload.name, flows, t.target.lab);
    t.target.driver.add(flows);
    return { workload: a.workload.name };
  },
  incast: (t, a, now) => {
    const all = hosts(t.target.fabric.topo).map((h) => h.name);
    const spec = incastWorkload(a, all, `incast-${t.workloads + 1}`);
    t.workloads++;
    return HANDLERS.start(
      t,
      { kind: "start", workload: spec, stream: `${workloadStream(spec.name)}:${t.workloads}` },
      now,
    );
  },
  udp: (t, a, now) => {
    const kernel = t.target.kernels?.get(a.from);
    if (t.target.kernels === undefined)
      throw new Error("a scenario run has no kernel stacks to send UDP from");
    if (kernel === undefined) throw new Error(`${a.from} is not a host`);
    kernel.command(
      {
        type: "udp",
        dstIp: hostAddress(t.target.fabric.plan, a.to).ip,
        rateBps: a.rateBps,
        ...(a.size !== undefined ? { size: a.size } : {}),
        ...(a.durationNs !== undefined ? { durationNs: a.durationNs } : {}),
      },
      now,
    );
    return undefined;
  },
  stop: (t, a, now) => {
    t.target.driver.stop(a.workloads);
    if (a.workloads === "all")
      for (const k of t.target.kernels?.values() ?? []) k.command({ type: "stop" }, now);
    return undefined;
  },
  link: (t, a) => {
    t.target.fabric.setLinkUp(t.target.fabric.linkId(a.node, a.port), a.up);
    return undefined;
  },
  device: (t, a) => {
    if (a.running) t.target.fabric.restart(a.node);
    else t.target.fabric.kill(a.node);
    return undefined;
  },
  "pfc-storm": (t, a, now) => {
    const nic = t.target.nics.get(a.host);
    if (nic === undefined) throw new Error(`${a.host} is not a host`);
    const cmd = { type: "pfc-storm", priority: a.priority } as const;
    check(a.host, nic.command(a.intervalNs !== undefined ? { ...cmd, intervalNs: a.intervalNs } : cmd, now));
    return undefined;
  },
  "pfc-enable": (t, a, now) => {
    const sw = t.target.fabric.switches.get(a.node);
    if (sw === undefined) throw new Error(`${a.node} is not a switch`);
    if (t.target.running?.(a.node) === false) throw new Error(`${a.node} is not running`);
    check(a.node, sw.command({ type: "pfc-enable", port: a.port, priority: a.priority }, now));
    return undefined;
  },
  set: (t, a, now) => {
    t.target.fabric.configureSwitches(a.change);
    if (a.change.hosts.length === 0) return undefined;
    const configure = t.target.fabric.settings.hostConfigure(a.change.hosts);
    for (const [name, nic] of t.target.nics)
      if (t.target.running?.(name) !== false) nic.command(configure, now);
    return undefined;
  },
  route: (t, a) => {
    t.target.fabric.setStaticRoute(a.node, a.to, a.via);
    return undefined;
  },
  dilation: (t, a) => {
    if (t.target.setDilation === undefined) throw new Error("a scenario run in the simulator has no pacing");
    if (a.dilation === "auto") throw new Error("the simulator's pacing has no auto dilation: give a number");
    t.target.setDilation(a.dilation);
    return undefined;
  },
  "clear-counters": (t, a, now) => {
    const { switches } = t.target.fabric;
    const names = a.nodes === "all" ? [...switches.keys(), ...t.target.nics.keys()] : a.nodes;
    for (const node of names) {
      const device = switches.get(node) ?? t.target.nics.get(node);
      if (device === undefined) throw new Error(`no device ${node} in this lab`);
      if (t.target.running?.(node) === false) {
        if (a.nodes === "all") continue;
        throw new Error(`${node} is not running`);
      }
      check(node, device.command({ type: "clear-counters" }, now));
    }
    return undefined;
  },
};

/** Carries out lab actions on a simulated fabric. */
export class SimActions {
  /** Incasts started so far (they are named incast-1, incast-2, ...). */
  workloads = 0;

  constructor(readonly target: SimActionTarget) {}

  /** Carries out `action` at `now` (the simulator's current time); throws with the reason when refused. */
  apply(action: LabAction, now: number): ActionResult {
    const handler = HANDLERS[action.kind] as (
      t: SimActions,
      a: LabAction,
      now: number,
    ) => ActionResult | undefined;
    return handler(this, action, now) ?? {};
  }
}
