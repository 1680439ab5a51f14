// The workloads of a live fabric: flows generated from workload specs (the simulator's generators, the
// same random streams), posted on the NICs by a FlowDriver at the lab's emulated time, and their
// completion records turned into the flow report.

import { createRandom } from "../../device/prng.js";
import type { NicCommand } from "../../nic/commands.js";
import type { CompletionRecord } from "../../nic/stats-types.js";
import { generateFlows, type WorkloadSpec } from "../../nic/workloads.js";
import type { AddressPlan } from "../address-plan.js";
import { type IncastRequest, incastWorkload } from "../controller.js";
import type { AnyDeviceStats } from "../device-stats.js";
import { FlowDriver } from "../flow-driver.js";
import type { FlowReport } from "../report/report.js";
import { NodeKind, type Topology } from "../topology.js";

/** What the traffic needs of the lab: its clock, and a way to command a NIC. */
export interface TrafficRuntime {
  now(): number;
  /** Real ms until the lab's dilated clock reaches `at` (emulated ns, from now). */
  realMsUntilIn(emulatedNs: number): number;
  /** Sends a command to a host's NIC; a failure is the runtime's to report. */
  command(host: string, cmd: NicCommand): void;
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
        // The lab's clock may run slower than real time (synced clocks on a busy machine): wait again
        // until it is there.
        const wait = (): void => {
          const now = this.runtime.now();
          if (now >= at) fn(now);
          else setTimeout(wait, Math.max(1, this.runtime.realMsUntilIn(at - now)));
        };
        wait();
      },
    });
  }

  /** A NIC said a flow completed (a `flow-done` event). */
  onFlowDone(flowId: number, at: number): void {
    this.driver.onFlowDone(flowId, at);
  }

  /**
   * Starts a workload now. `stream` names its random stream (a scenario run passes the simulator's, so both
   * runtimes draw the same flows).
   */
  startWorkload(spec: WorkloadSpec, stream?: string): { name: string; flows: number } {
    const now = this.runtime.now();
    const random = createRandom(this.seed, stream ?? `workload:${spec.name}:${this.workloadCount++}`);
    const flows = generateFlows(spec, now, random, this.driver.newId);
    this.driver.add(flows);
    return { name: spec.name, flows: flows.length };
  }

  /** An N-to-1 incast of RDMA WRITEs, started now. */
  incast(req: IncastRequest): { name: string; flows: number } {
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
