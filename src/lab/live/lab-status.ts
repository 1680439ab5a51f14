// What a running lab reports about itself: the `status` and `snapshot` answers of its control socket,
// the same whether the supervisor started the devices or attached to them (attach.ts).

import type { AnyDeviceStats } from "../device-stats.js";
import type { LabEvent, LinkView } from "../lab.js";
import type { ClockMode } from "./clock-plan.js";
import type { DeviceConnection } from "./device-connection.js";
import type { LabState } from "./state.js";

export interface DeviceView {
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly status: string;
  readonly pid: number | null;
  readonly restarts: number;
  readonly health: DeviceConnection["health"];
  /** Attached devices: where the control channel reaches it. */
  readonly endpoint?: string;
}

export interface LabStatus {
  readonly lab: string;
  readonly status: LabState["status"];
  readonly topology: string;
  readonly dilation: number;
  /** `--dilation auto` (or `rocelab dilation auto`): the supervisor adjusts the dilation. */
  readonly dilationAuto: boolean;
  readonly now: number;
  /** How the devices' clocks run, and how far the lab's clock is behind real time / dilation (ns). */
  readonly clock: ClockMode;
  readonly behindNs: number;
  readonly devices: readonly DeviceView[];
  readonly links: readonly LinkView[];
  /** `rocelab attach`: the endpoints file of devices this lab did not start. */
  readonly attached?: string;
  /** Where the lab serves Prometheus /metrics (absent: it does not). */
  readonly metrics?: string;
}

export interface Snapshot extends LabStatus {
  readonly stats: Record<string, AnyDeviceStats>;
  readonly events: readonly LabEvent[];
}
