// The workloads of a live fabric: flows generated from workload specs (the simulator's generators, the
// same random streams), posted on the NICs by a FlowDriver at the lab's emulated time, and their
// completion records turned into the flow report.

import { createRandom } from "../../device/prng.js";
import type { NicCommand } from "../../nic/commands.js";
import type { CompletionRecord } from "../../nic/stats-types.js";
import { generateFlows, type WorkloadSpec } from "../../nic/workloads.js";
import { type ActionOf, incastWorkload } from "../../scenario/action.js";
import type { AddressPlan } from "../../scenario/address-plan.js";
import { NodeKind, type Topology } from "../../scenario/topology.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { FlowDriver } from "../flow-driver.js";
import type { FlowReport } from "../flow-report.js";
import { type LabNow, refuseUnavailableHosts } from "../host-availability.js";

/**
 * Real time by which a live lab hands work ahead to its devices (a workload's request to the supervisor,
 * each flow's post to its NIC): more than a control message takes on a busy machine (a few ms), so the NICs
 * start flows at their emulated times as the simulator does, not when the message got there.
 */
export const AHEAD_REAL_MS = 250;

/** What the traffic needs of the lab: its clock, and a way to command a NIC. */
export interface TrafficRuntime {
  now(): number;
  /** Real ms until the lab's dilated clock reaches `at` (emulated ns, from now). */
  realMsUntilIn(emulatedNs: number): number;
  /**
   * How long before its time a flow is handed to its NIC, emulated ns: the post carries its time and the
   * NIC starts it then on its own clock, so the control channel's delay does not move the start.
   */
  aheadNs(): number;
  /** Sends a command to a host's NIC; a failure is the runtime's to report. */
  command(host: string, cmd: NicCommand): void;
  /** The devices' status and the links that are down: a workload from or to a host that is not there is refused. */
  readonly lab?: LabNow;
}

export class FleetTraffic {
  private driver: FlowDriver;
  /** Drivers replaced by `stop`, kept for the flow report of a scenario run. */
  private readonly oldDrivers: FlowDriver[] = [];
  private workloadCount = 0;

  constructor(
    private readonly topo: Topology,
    private readonly plan: AddressPlan,
    private readonly seed: number,
    private readonly runtime: TrafficRuntime,
  ) {
    this.driver = this.newDriver();
  }

  private newDriver(): FlowDriver {
    return new FlowDriver(this.plan, {
      command: (host, cmd) => this.runtime.command(host, cmd),
      schedule: (at, fn) => {
        // Sent ahead of its time; the lab's clock may run slower than real time (synced clocks on a busy
        // machine): wait again until it is close enough.
        const wait = (): void => {
          const now = this.runtime.now();
          const from = at - this.runtime.aheadNs();
          if (now >= from) fn(at);
          else setTimeout(wait, Math.max(1, this.runtime.realMsUntilIn(from - now)));
        };
        wait();
      },
    });
  }

  /** A NIC said a flow completed (a `flow-done` event). */
  onFlowDone(flowId: number, at: number): void {
    this.driver.onFlowDone(flowId, at);
  }

  /** A NIC said a flow failed (a `flow-failed` event): the workload may reconnect. */
  onFlowFailed(flowId: number, status: string, at: number): void {
    this.driver.onFlowFailed(flowId, status, at);
  }

  /**
   * Starts a workload at emulated time `at` (the lab's clock); without one, one lead after now, so that
   * its flows reach every NIC ahead and start together (an incast from the TUI is then a true incast).
   * `stream` names its random stream (a scenario run passes the simulator's, so both runtimes draw the
   * same flows).
   */
  startWorkload(spec: WorkloadSpec, stream?: string, at?: number): { name: string; flows: number } {
    const start = at ?? this.runtime.now() + this.runtime.aheadNs();
    const random = createRandom(this.seed, stream ?? `workload:${spec.name}:${this.workloadCount++}`);
    const flows = generateFlows(spec, start, random, this.driver.newId);
    if (this.runtime.lab) refuseUnavailableHosts(this.topo, spec.name, flows, this.runtime.lab);
    this.driver.add(flows);
    return { name: spec.name, flows: flows.length };
  }

  /** An N-to-1 incast of RDMA WRITEs, started as soon as its posts can reach every NIC ahead. */
  incast(req: ActionOf<"incast">): { name: string; flows: number } {
    const all = this.topo.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
    return this.startWorkload(incastWorkload(req, all, `incast-${this.workloadCount + 1}`));
  }

  /** Stops some workloads: nothing more of them is posted. */
  stopWorkloads(names: readonly string[]): void {
    this.driver.stop(names);
  }

  /** Stops every workload and clears the NICs; later workloads start from a clean slate. */
  stopAll(): void {
    this.driver.stop("all");
    this.oldDrivers.push(this.driver);
    this.driver = this.newDriver();
  }

  /** Every flow of every workload so far, with the NICs' completion records. */
  report(stats: Readonly<Record<string, AnyDeviceStats>>): FlowReport[] {
    const records = new Map<string, CompletionRecord[]>();
    for (const [name, s] of Object.entries(stats)) {
      if (s.kind === "nic") records.set(name, [...s.detail.flows]);
    }
    return [...this.oldDrivers, this.driver].flatMap((d) => d.report(records));
  }
}
