// switch-forwarding's `port-io` phase process: port-echo.ts in the switch's namespace, driven over IPC.

import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import { distPath } from "../../src/lab/live/paths.js";
import { DEVICE_V8_FLAGS } from "../../src/runtime/realtime/v8-flags.js";
import type { FromEcho, ToEcho } from "./port-echo.js";
import { BENCH_LAB, ns } from "./switch-forwarding-setup.js";

/** Frames read from eth1, the batches they came in (wake-ups that found frames), sendmmsg() calls. */
export interface EchoCounts {
  readonly framesIn: number;
  readonly batches: number;
  readonly flushes: number;
}

/** The echo's program, relative to a checkout's root. */
export const ECHO_ENTRY = "dist/tools/bench/port-echo.js";

export class Echo {
  private readonly child;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (c: EchoCounts) => void; reject: (e: Error) => void }
  >();
  private childPid = 0;
  readonly ready: Promise<number>;

  /**
   * Starts the echo with the ring sizes a switch of these ports would get: this build's, or `entry` (another
   * checkout's port-echo.js, which then uses that checkout's addon).
   */
  constructor(rateBps: number, dilation: number, entry?: string) {
    this.child = execa(
      "ip",
      [
        ...["netns", "exec", ns("sw"), process.execPath, ...DEVICE_V8_FLAGS],
        entry ?? distPath("tools/bench/port-echo.js"),
        ...["--lab", BENCH_LAB, "--rate-bps", String(rateBps), "--dilation", String(dilation)],
      ],
      { ipc: true, stdin: "ignore", stdout: "inherit", stderr: "inherit", reject: false, cleanup: true },
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.on("message", (raw) => {
        const m = raw as FromEcho;
        if (m.type === "ready") {
          this.childPid = m.pid;
          resolve(m.pid);
        } else if (m.type === "count") {
          this.waiting.get(m.id)?.resolve({ framesIn: m.framesIn, batches: m.batches, flushes: m.flushes });
          this.waiting.delete(m.id);
        } else if (m.type === "fatal") reject(new Error(`port echo failed: ${m.message}`));
      });
      void this.child.then((r) => {
        const e = new Error(`port echo exited (code ${r.exitCode}, signal ${r.signal})`);
        reject(e);
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      });
    });
  }

  /** The echo's own pid (`ip netns exec` execs node, so the child's; taken from the echo to be sure). */
  get pid(): number {
    return this.childPid;
  }

  private send(m: ToEcho): void {
    if (this.child.connected) this.child.send(m);
  }

  /** What the echo has done so far. */
  counts(): Promise<EchoCounts> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ type: "count", id });
    });
  }

  async stop(): Promise<void> {
    this.send({ type: "exit" });
    await Promise.race([this.child, sleep(2000)]);
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}
