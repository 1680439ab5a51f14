// switch-forwarding's `port-io` phase process: port-echo.ts in the switch's namespace, driven over IPC.

import { distPath } from "../../src/lab/live/paths.js";
import { DEVICE_V8_FLAGS } from "../../src/runtime/realtime/v8-flags.js";
import { NamespaceChild } from "./namespace-child.js";
import type { FromEcho, ToEcho } from "./port-echo.js";
import { BENCH_LAB, ns } from "./switch-forwarding-setup.js";

/** Frames read from eth1, the batches they came in (wake-ups that found frames), sendmmsg() calls. */
export type EchoCounts = Omit<Extract<FromEcho, { type: "count" }>, "type" | "id">;

/** The echo's program, relative to a checkout's root. */
export const ECHO_ENTRY = "dist/tools/bench/port-echo.js";

export class Echo extends NamespaceChild<ToEcho, FromEcho> {
  /**
   * Starts the echo with the ring sizes a switch of these ports would get: this build's, or `entry` (another
   * checkout's port-echo.js, which then uses that checkout's addon).
   */
  constructor(rateBps: number, dilation: number, entry?: string) {
    super("port echo", ns("sw"), [
      ...DEVICE_V8_FLAGS,
      entry ?? distPath("tools/bench/port-echo.js"),
      ...["--lab", BENCH_LAB, "--rate-bps", String(rateBps), "--dilation", String(dilation)],
    ]);
  }

  /** What the echo has done so far. */
  counts(): Promise<EchoCounts> {
    return this.request<Extract<FromEcho, { type: "count" }>>((id) => ({ type: "count", id }));
  }
}
