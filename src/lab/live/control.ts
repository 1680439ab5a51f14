// The control channel of a running lab: a Unix socket in the lab's run directory speaking JSON lines.
// Requests carry an id and get exactly one response; a `subscribe` request also turns the connection into
// a stream of pushed messages (progress, snapshots, events). The CLI and the TUI are its clients.

import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { readJsonLines } from "../../runtime/realtime/json-lines.js";

/** The lab refused a request (an unknown node, a device that is not running, ...): a user-facing error. */
export class RemoteError extends Error {
  override readonly name = "RemoteError";
}

export interface ControlRequest {
  readonly id: number;
  readonly op: string;
  readonly args?: unknown;
}

export type ControlResponse =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string };

export interface ControlPush {
  readonly push: string;
  readonly data: unknown;
}

/** JSON lines from `socket`; a listener that throws ends the connection, as bad input does. */
function lines(socket: Socket, onMessage: (m: unknown) => void): void {
  readJsonLines(socket, (m) => {
    try {
      onMessage(m);
    } catch {
      socket.destroy();
    }
  });
}

export type Handler = (op: string, args: unknown, conn: ControlConnection) => Promise<unknown>;

export class ControlConnection {
  private subscribed = false;

  constructor(readonly socket: Socket) {}

  get isSubscribed(): boolean {
    return this.subscribed;
  }

  subscribe(): void {
    this.subscribed = true;
  }

  push(push: string, data: unknown): void {
    if (!this.socket.destroyed) this.socket.write(`${JSON.stringify({ push, data })}\n`);
  }
}

export class ControlServer {
  private readonly server: Server;
  readonly connections = new Set<ControlConnection>();

  constructor(
    private readonly path: string,
    handler: Handler,
  ) {
    this.server = createServer((socket) => {
      const conn = new ControlConnection(socket);
      this.connections.add(conn);
      socket.on("close", () => this.connections.delete(conn));
      socket.on("error", () => socket.destroy());
      lines(socket, (raw) => {
        const req = raw as ControlRequest;
        handler(req.op, req.args, conn).then(
          (result) =>
            !socket.destroyed && socket.write(`${JSON.stringify({ id: req.id, ok: true, result })}\n`),
          (e: unknown) =>
            !socket.destroyed &&
            socket.write(
              `${JSON.stringify({ id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) })}\n`,
            ),
        );
      });
    });
  }

  listen(): Promise<void> {
    if (existsSync(this.path)) unlinkSync(this.path);
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.path, () => {
        // Only root may drive the lab: the socket is 0600 in a 0700 directory.
        chmodSync(this.path, 0o600);
        resolve();
      });
    });
  }

  /** Sends a push message to every subscribed connection. */
  broadcast(push: string, data: unknown): void {
    for (const c of this.connections) if (c.isSubscribed) c.push(push, data);
  }

  close(): Promise<void> {
    for (const c of this.connections) c.socket.end();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export class ControlClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners: ((push: string, data: unknown) => void)[] = [];
  private closed = false;

  private constructor(private readonly socket: Socket) {
    lines(socket, (raw) => {
      const m = raw as ControlResponse | ControlPush;
      if ("push" in m) {
        for (const l of this.listeners) l(m.push, m.data);
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new RemoteError(m.error));
    });
    socket.on("close", () => {
      this.closed = true;
      for (const p of this.pending.values()) p.reject(new Error("the lab closed the connection"));
      this.pending.clear();
      for (const l of this.listeners) l("closed", null);
    });
  }

  static connect(path: string, timeoutMs = 3000): Promise<ControlClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer on ${path}`));
      }, timeoutMs);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.on("error", () => {});
        resolve(new ControlClient(socket));
      });
      socket.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  request<T = unknown>(op: string, args?: unknown, timeoutMs = 60_000): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the lab connection is closed"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the lab did not answer "${op}" within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.socket.write(`${JSON.stringify({ id, op, args })}\n`);
    });
  }

  onPush(listener: (push: string, data: unknown) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.socket.end();
  }
}
