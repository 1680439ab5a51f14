// switch-forwarding's frame generator: a child process in the generator namespace (frame-generator.ts),
// driven over IPC: one paced burst per load level.

import { distPath } from "../../src/lab/live/paths.js";
import type { PortBackend } from "../../src/runtime/realtime/port-io.js";
import type { FromGenerator, ToGenerator } from "./frame-generator.js";
import { NamespaceChild } from "./namespace-child.js";
import { BENCH_LAB, ns } from "./switch-forwarding-setup.js";

export class Generator extends NamespaceChild<ToGenerator, FromGenerator> {
  constructor(frame: Uint8Array, io: PortBackend) {
    super("frame generator", ns("sender"), [
      distPath("tools/bench/frame-generator.js"),
      ...["--lab", BENCH_LAB, "--ifname", "eth1", "--io", io],
    ]);
    this.send({ type: "init", frameHex: Buffer.from(frame).toString("hex") });
  }

  /** Sends at `fps` (0: flat out) for `seconds`; resolves with what was sent. */
  run(fps: number, seconds: number): Promise<Extract<FromGenerator, { type: "done" }>> {
    return this.request((id) => ({ type: "run", id, fps, seconds }));
  }
}
