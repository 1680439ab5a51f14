// The requests a running lab's control socket answers (control.ts), the same for a lab whose devices the
// supervisor started and for one attached to devices it did not start: each kind of lab is a LabService;
// what only a supervisor can do (kill and restart processes, kernel UDP in host namespaces, change the
// dilation of clocks it owns) is the service's to do or to refuse with a reason.

import type { WorkloadSpec } from "../../nic/workloads.js";
import { PRIVATE_FILE_MODE } from "../../runtime/live/safe-files.js";
import type { IncastRequest, UdpRequest } from "../controller.js";
import type { NicSettings, SwitchSettings } from "../schema.js";
import type { Topology } from "../topology.js";
import { topologyView } from "../topology-view.js";
import type { ControlConnection } from "./control.js";
import type { DeviceFleet } from "./device-fleet.js";
import type { LabStatus, Snapshot } from "./lab-status.js";

export interface LabService {
  readonly topo: Topology;
  readonly fleet: DeviceFleet;
  status(): LabStatus;
  /** Bring-up steps so far, for a client that subscribes after some were broadcast. */
  progressLog(): readonly string[];
  kill(node: string): void;
  restart(node: string): Promise<void>;
  udp(req: UdpRequest): void | Promise<void>;
  udpStats(): unknown;
  /** Every workload and UDP stream. */
  stopTraffic(): void;
  setDilation(d: number | "auto"): unknown;
  /** Stops the lab soon (after the answer has gone out). */
  down(): void;
}

export async function handleLabRequest(
  lab: LabService,
  op: string,
  args: unknown,
  conn: ControlConnection,
): Promise<unknown> {
  const a = (args ?? {}) as Record<string, unknown>;
  const fleet = lab.fleet;
  switch (op) {
    case "status":
      return lab.status();
    case "subscribe":
      conn.subscribe();
      return { ...lab.status(), events: fleet.recentEvents(), progress: lab.progressLog() };
    case "snapshot":
      return {
        ...lab.status(),
        stats: await fleet.allStats(),
        events: fleet.recentEvents(),
      } satisfies Snapshot;
    case "stats":
      return fleet.stats(String(a.node));
    case "command":
      return fleet.command(String(a.node), a.command);
    case "link":
      fleet.setLink(String(a.node), Number(a.port), Boolean(a.up));
      return { ok: true };
    case "kill":
      lab.kill(String(a.node));
      return { ok: true };
    case "restart":
      await lab.restart(String(a.node));
      return { ok: true };
    case "topology":
      return topologyView(lab.topo, (id) => fleet.downLinks.has(id));
    case "workload":
      return fleet.traffic.startWorkload(
        a.spec as WorkloadSpec,
        a.stream as string | undefined,
        startTime(a.at),
      );
    case "stop-workloads":
      fleet.traffic.stopWorkloads(a.names as string[]);
      return { ok: true };
    case "flows":
      return fleet.flowReport();
    case "incast":
      return fleet.traffic.incast(a as unknown as IncastRequest);
    case "udp":
      await lab.udp(a as unknown as UdpRequest);
      return { ok: true };
    case "stop-traffic":
      lab.stopTraffic();
      return { ok: true };
    case "configure-switches":
      await fleet.configureSwitches(a.settings as SwitchSettings, a.only as string[] | undefined);
      return { ok: true };
    case "configure-hosts":
      await fleet.configureHosts(a.settings as NicSettings);
      return { ok: true };
    case "events":
      return fleet.recentEvents(Number(a.limit ?? 200));
    case "udp-stats":
      return lab.udpStats();
    case "dilation":
      return lab.setDilation(a.dilation === "auto" ? "auto" : Number(a.dilation));
    case "route":
      await fleet.setStaticRoute(String(a.node), String(a.to), a.via === null ? null : String(a.via));
      return { ok: true };
    case "capture":
      return fleet.capture(String(a.node), Number(a.port), Number(a.seconds), String(a.file), {
        force: a.force === true,
        mode: typeof a.mode === "number" ? a.mode & 0o644 : PRIVATE_FILE_MODE,
      });
    case "switch-config":
      return fleet.switchConfig(String(a.node));
    case "down":
      lab.down();
      return { ok: true };
    default:
      throw new Error(`unknown request "${op}"`);
  }
}

/** A workload request's `at`: the lab's emulated ns to start at (absent: now). */
function startTime(at: unknown): number | undefined {
  if (at === undefined) return undefined;
  if (typeof at !== "number" || !Number.isFinite(at) || at < 0) {
    throw new Error(
      `workload: "at" must be the lab's emulated time in ns (a number >= 0), not ${JSON.stringify(at)}`,
    );
  }
  return at;
}
