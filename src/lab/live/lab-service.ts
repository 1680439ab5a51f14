// A running lab as its control socket's handlers see it (lab-requests.ts, live-actions.ts), the same for a
// lab whose devices the supervisor started and for one attached to devices it did not start: what only a
// supervisor can do (kill and restart processes, kernel UDP in host namespaces, change the dilation of clocks
// it owns) is the service's to do or to refuse with a reason.

import type { ActionOf } from "../../scenario/action.js";
import type { Topology } from "../../scenario/topology.js";
import type { DeviceFleet } from "./device-fleet.js";
import type { LabStatus } from "./lab-status.js";

export interface LabService {
  readonly topo: Topology;
  readonly fleet: DeviceFleet;
  status(): LabStatus;
  /** Bring-up steps so far, for a client that subscribes after some were broadcast. */
  progressLog(): readonly string[];
  kill(node: string): void;
  restart(node: string): Promise<void>;
  udp(req: ActionOf<"udp">): void | Promise<void>;
  udpStats(): unknown;
  /** Every workload and UDP stream. */
  stopTraffic(): void;
  setDilation(d: number | "auto"): { dilation: number; auto: boolean; at: number };
  /**
   * Holds the lab's synced clocks at emulated `at` until the next call (+Inf releases them): a scenario's
   * next step then reaches its devices before their time. Whether the clocks can be held (free-running
   * ones and an attached fabric's cannot).
   */
  hold(at: number): boolean;
  /** Stops the lab soon (after the answer has gone out). */
  down(): void;
}
