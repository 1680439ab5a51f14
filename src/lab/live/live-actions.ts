// Lab actions in the live lab: one handler per kind of scenario/action.ts, carried out by the lab's
// supervisor (or an attachment) on the devices of its fleet, at the lab's emulated now. A client sends the
// action over the control socket (`apply`, lab-requests.ts); the simulator's handlers are
// lab/sim/sim-actions.ts.

import type { ActionOf, ActionResult, LabAction, LabActionKind } from "../../scenario/action.js";
import type { LabService } from "./lab-service.js";

type Handlers = {
  readonly [K in LabActionKind]: (
    lab: LabService,
    a: ActionOf<K>,
  ) => ActionResult | undefined | Promise<ActionResult | undefined>;
};

/** A device command through the fleet; throws with the device's reason when it refuses. */
async function command(lab: LabService, node: string, cmd: unknown): Promise<undefined> {
  const reply = (await lab.fleet.command(node, cmd)) as { ok: boolean; error?: string };
  if (!reply.ok) throw new Error(`${node}: ${reply.error ?? "refused"}`);
  return undefined;
}

/** A start action's `at`: the lab's emulated ns to start at (absent: one lead after now). */
function startTime(at: unknown): number | undefined {
  if (at === undefined) return undefined;
  if (typeof at !== "number" || !Number.isFinite(at) || at < 0) {
    throw new Error(
      `start: "at" must be the lab's emulated time in ns (a number >= 0), not ${JSON.stringify(at)}`,
    );
  }
  return at;
}

const HANDLERS: Handlers = {
  start: (lab, a) => ({
    workload: lab.fleet.traffic.startWorkload(a.workload, a.stream, startTime(a.at)).name,
  }),
  incast: (lab, a) => ({ workload: lab.fleet.traffic.incast(a).name }),
  udp: async (lab, a) => {
    await lab.udp(a);
    return undefined;
  },
  stop: (lab, a) => {
    if (a.workloads === "all") lab.stopTraffic();
    else lab.fleet.traffic.stopWorkloads(a.workloads);
    return undefined;
  },
  link: (lab, a) => {
    lab.fleet.setLink(a.node, a.port, a.up);
    return undefined;
  },
  device: async (lab, a) => {
    if (a.running) await lab.restart(a.node);
    else lab.kill(a.node);
    return undefined;
  },
  "pfc-storm": (lab, a) =>
    command(lab, a.host, {
      type: "pfc-storm",
      priority: a.priority,
      ...(a.intervalNs !== undefined ? { intervalNs: a.intervalNs } : {}),
    }),
  "pfc-enable": (lab, a) => command(lab, a.node, { type: "pfc-enable", port: a.port, priority: a.priority }),
  // One layer at a time, in the order the simulator stacks them (settings-layers.ts).
  set: async (lab, a) => {
    for (const s of a.change.switches) await lab.fleet.configureSwitches(s);
    for (const [node, layers] of Object.entries(a.change.nodes))
      for (const s of layers) await lab.fleet.configureSwitches(s, [node]);
    for (const s of a.change.hosts) await lab.fleet.configureHosts(s);
    return undefined;
  },
  route: async (lab, a) => {
    await lab.fleet.setStaticRoute(a.node, a.to, a.via);
    return undefined;
  },
  dilation: (lab, a) => {
    const r = lab.setDilation(a.dilation);
    return { dilation: { value: r.dilation, auto: r.auto, atNs: r.at } };
  },
  "clear-counters": async (lab, a) => {
    const { devices } = lab.fleet;
    for (const node of a.nodes === "all" ? devices.keys() : a.nodes) {
      const status = devices.get(node)?.status;
      if (status === undefined) throw new Error(`no device ${node} in this lab`);
      if (status !== "running") {
        if (a.nodes === "all") continue;
        throw new Error(`${node} is ${status}`);
      }
      await command(lab, node, { type: "clear-counters" });
    }
    return undefined;
  },
};

/** Carries out an action on a live lab; rejects with the reason when the lab refuses it. */
export async function applyLiveAction(lab: LabService, action: LabAction): Promise<ActionResult> {
  const handler = HANDLERS[action.kind] as (
    lab: LabService,
    a: LabAction,
  ) => ActionResult | undefined | Promise<ActionResult | undefined>;
  return (await handler(lab, action)) ?? {};
}
