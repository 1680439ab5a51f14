// A device's control channel on a socket (TCP or Unix), for a device the lab supervisor did not start:
// the device entrypoint of a container (lab/live/device-entry.ts). Controllers (`rocelab attach`)
// connect, pass the token handshake (control-auth.ts), then speak the same messages as the IPC channel,
// as JSON lines. Several controllers may be connected; each gets the answers to its own requests, and
// all of them the events and health. Events raised while no controller is connected wait (the latest
// EVENT_BACKLOG) for the next one.

import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { DeviceChannel } from "./channel.js";
import { newChallenge, proof, proofMatches } from "./control-auth.js";
import { type ControlEndpoint, formatControlEndpoint } from "./control-endpoint.js";
import { readJsonLines, writeJsonLine } from "./json-lines.js";
import type { DeviceIdentity, FromDevice, TimedEvent, ToDevice } from "./protocol.js";

/** Events kept for the next controller while none is connected. */
export const EVENT_BACKLOG = 2000;
/** Real ms a connection has to complete the handshake. */
const HANDSHAKE_MS = 5000;

type Listener = (message: ToDevice, reply: (m: FromDevice) => void) => void;

export interface SocketChannelOptions {
  readonly endpoint: ControlEndpoint;
  /** The shared secret; null only on a Unix socket (the file's permissions protect it). */
  readonly token: Buffer | null;
  /** Who the device is, for the `ready` of each new controller (null: not started yet). */
  readonly identity: () => DeviceIdentity | null;
  /** A line for the device's log (connections, refusals). */
  readonly log: (line: string) => void;
}

export class SocketChannel implements DeviceChannel {
  private readonly server: Server;
  private readonly controllers = new Set<Socket>();
  private listener: Listener | null = null;
  private backlog: TimedEvent[] = [];

  private constructor(private readonly opts: SocketChannelOptions) {
    if (opts.token === null && opts.endpoint.kind === "tcp")
      throw new Error(
        `a TCP control channel (${formatControlEndpoint(opts.endpoint)}) needs a token file: anyone who reaches the port could drive the device`,
      );
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Listens on the endpoint; resolves once bound. */
  static async listen(opts: SocketChannelOptions): Promise<SocketChannel> {
    const channel = new SocketChannel(opts);
    const e = opts.endpoint;
    if (e.kind === "unix" && existsSync(e.path)) unlinkSync(e.path);
    await new Promise<void>((resolve, reject) => {
      channel.server.once("error", (err) =>
        reject(new Error(`cannot listen on ${formatControlEndpoint(e)}: ${err.message}`)),
      );
      const done = (): void => {
        if (e.kind === "unix") chmodSync(e.path, 0o600);
        resolve();
      };
      if (e.kind === "unix") channel.server.listen(e.path, done);
      else channel.server.listen(e.port, e.host, done);
    });
    return channel;
  }

  /** Where it listens (with the port the kernel chose, for port 0). */
  get address(): string {
    const a = this.server.address();
    if (a === null || typeof a === "string") return formatControlEndpoint(this.opts.endpoint);
    return formatControlEndpoint({ kind: "tcp", host: a.address, port: a.port });
  }

  onMessage(listener: Listener): void {
    this.listener = listener;
  }

  broadcast(message: FromDevice): void {
    if (this.controllers.size === 0) {
      if (message.type === "events") {
        this.backlog.push(...message.events);
        if (this.backlog.length > EVENT_BACKLOG) this.backlog.splice(0, this.backlog.length - EVENT_BACKLOG);
      }
      return;
    }
    for (const c of this.controllers) writeJsonLine(c, message);
  }

  /** Controllers come and go; the device runs on until it is stopped. */
  onGone(): void {}

  close(): void {
    for (const c of this.controllers) c.destroy();
    this.server.close();
    const e = this.opts.endpoint;
    if (e.kind === "unix" && existsSync(e.path)) unlinkSync(e.path);
  }

  private accept(socket: Socket): void {
    const peer = socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : "unix socket";
    socket.on("error", () => socket.destroy());
    const token = this.opts.token;
    const challenge = token ? newChallenge() : null;
    let authenticated = false;
    const timer = setTimeout(() => {
      if (!authenticated) this.refuse(socket, peer, "no handshake within 5 s");
    }, HANDSHAKE_MS);
    socket.on("close", () => {
      clearTimeout(timer);
      if (this.controllers.delete(socket)) this.opts.log(`controller ${peer} disconnected`);
    });
    readJsonLines(socket, (raw) => {
      const m = raw as ToDevice;
      if (!authenticated) {
        if (m.type !== "auth" || token === null || challenge === null) {
          this.refuse(socket, peer, "expected the auth answer to the challenge");
          return;
        }
        if (!proofMatches(token, "controller", challenge, m.proof)) {
          this.refuse(socket, peer, "wrong token");
          return;
        }
        authenticated = true;
        clearTimeout(timer);
        this.welcome(socket, peer, proof(token, "device", String(m.challenge)));
        return;
      }
      if (m.type === "init") {
        writeJsonLine(socket, {
          type: "fatal",
          message: "this device was configured from its file; it takes no init",
        } satisfies FromDevice);
        return;
      }
      this.listener?.(m, (r) => writeJsonLine(socket, r));
    });
    if (challenge !== null) writeJsonLine(socket, { type: "challenge", challenge } satisfies FromDevice);
    else {
      authenticated = true;
      clearTimeout(timer);
      this.welcome(socket, peer, undefined);
    }
  }

  private welcome(socket: Socket, peer: string, deviceProof: string | undefined): void {
    const identity = this.opts.identity();
    if (identity === null) {
      this.refuse(socket, peer, "the device is still starting; try again");
      return;
    }
    writeJsonLine(socket, {
      type: "ready",
      pid: process.pid,
      identity,
      ...(deviceProof !== undefined ? { proof: deviceProof } : {}),
    } satisfies FromDevice);
    this.controllers.add(socket);
    this.opts.log(`controller ${peer} connected`);
    if (this.backlog.length > 0) {
      writeJsonLine(socket, { type: "events", events: this.backlog } satisfies FromDevice);
      this.backlog = [];
    }
  }

  private refuse(socket: Socket, peer: string, why: string): void {
    this.opts.log(`refused controller ${peer}: ${why}`);
    writeJsonLine(socket, { type: "refused", message: why } satisfies FromDevice);
    socket.end();
  }
}
