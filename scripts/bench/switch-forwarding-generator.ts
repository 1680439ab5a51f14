// switch-forwarding's frame generator: a child process in the generator namespace (frame-generator.ts),
// driven over IPC: one paced burst per load level.

import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import { distPath } from "../../src/lab/live/paths.js";
import type { PortBackend } from "../../src/runtime/realtime/port-io.js";
import type { FromGenerator, ToGenerator } from "./frame-generator.js";

import { BENCH_LAB, ns } from "./switch-forwarding-setup.js";

// -------------------------------------------------------------------------------------------------------
// The generator process

export class Generator {
  private readonly child;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (m: Extract<FromGenerator, { type: "done" }>) => void; reject: (e: Error) => void }
  >();
  readonly ready: Promise<number>;

  constructor(frame: Uint8Array, io: PortBackend) {
    this.child = execa(
      "ip",
      [
        ...["netns", "exec", ns("sender"), process.execPath, distPath("tools/bench/frame-generator.js")],
        ...["--lab", BENCH_LAB, "--ifname", "eth1", "--io", io],
      ],
      { ipc: true, stdin: "ignore", stdout: "inherit", stderr: "inherit", reject: false, cleanup: true },
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.on("message", (raw) => {
        const m = raw as FromGenerator;
        if (m.type === "ready") resolve(m.pid);
        else if (m.type === "done") {
          this.waiting.get(m.id)?.resolve(m);
          this.waiting.delete(m.id);
        } else if (m.type === "fatal") reject(new Error(`frame generator failed: ${m.message}`));
      });
      void this.child.then((r) => {
        const e = new Error(`frame generator exited (code ${r.exitCode}, signal ${r.signal})`);
        reject(e);
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      });
    });
    this.send({ type: "init", frameHex: Buffer.from(frame).toString("hex") });
  }

  get pid(): number {
    return this.child.pid!;
  }

  private send(m: ToGenerator): void {
    if (this.child.connected) this.child.send(m);
  }

  /** Sends at `fps` (0: flat out) for `seconds`; resolves with what was sent. */
  run(fps: number, seconds: number): Promise<Extract<FromGenerator, { type: "done" }>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ type: "run", id, fps, seconds });
    });
  }

  async stop(): Promise<void> {
    this.send({ type: "exit" });
    await Promise.race([this.child, sleep(2000)]);
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}
