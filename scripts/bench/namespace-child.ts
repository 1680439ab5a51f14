// A helper process of switch-forwarding inside one of its namespaces, driven over IPC: the frame generator
// (switch-forwarding-generator.ts) and the port-io phase's echo (switch-forwarding-echo.ts). The child says
// `ready` with its pid, answers each request by the request's id, says `fatal` when it cannot start, and
// leaves on `exit`.

import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";

/** What every such child may send: its pid once ready, an answer carrying a request's id, or why it failed. */
type ChildMessage = {
  readonly type: string;
  readonly id?: number;
  readonly pid?: number;
  readonly message?: string;
};

export class NamespaceChild<To extends { readonly type: string }, From extends { readonly type: string }> {
  private readonly child;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (m: From) => void; reject: (e: Error) => void }>();
  private childPid = 0;
  /** Resolves with the child's pid once it is ready. */
  readonly ready: Promise<number>;

  /** Starts `node [argv]` in `namespace`; `what` names it in errors ("frame generator"). */
  constructor(what: string, namespace: string, argv: readonly string[]) {
    this.child = execa("ip", ["netns", "exec", namespace, process.execPath, ...argv], {
      ipc: true,
      stdin: "ignore",
      stdout: "inherit",
      stderr: "inherit",
      reject: false,
      cleanup: true,
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.on("message", (raw) => {
        const m = raw as ChildMessage;
        if (m.type === "ready") {
          this.childPid = m.pid ?? 0;
          resolve(this.childPid);
        } else if (m.type === "fatal") reject(new Error(`${what} failed: ${m.message}`));
        else if (m.id !== undefined) {
          this.waiting.get(m.id)?.resolve(raw as From);
          this.waiting.delete(m.id);
        }
      });
      void this.child.then((r) => {
        const e = new Error(`${what} exited (code ${r.exitCode}, signal ${r.signal})`);
        reject(e);
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      });
    });
  }

  /** The child's own pid, as it said when ready (`ip netns exec` execs node, so the child's). */
  get pid(): number {
    return this.childPid;
  }

  protected send(m: To | { readonly type: "exit" }): void {
    if (this.child.connected) this.child.send(m);
  }

  /** Sends the request `make` builds with a fresh id; resolves with the child's answer to it. */
  protected request<R extends From>(make: (id: number) => To): Promise<R> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (m: From) => void, reject });
      this.send(make(id));
    });
  }

  /** Asks the child to leave; kills it when it has not after 2 s. */
  async stop(): Promise<void> {
    this.send({ type: "exit" });
    await Promise.race([this.child, sleep(2000)]);
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}
