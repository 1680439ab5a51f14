// A device's control channel on a socket (TCP or Unix), for a device the lab supervisor did not start:
// the device entrypoint of a container (lab/live/device-entry.ts). Controllers (`rocelab attach`)
// connect, pass the token handshake (control-auth.ts), then speak the same messages as the IPC channel,
// sealed (sealed-lines.ts). Several controllers may be connected; each gets the answers to its own
// requests, and all of them the events and health. Events raised while no controller is connected wait
// (the latest EVENT_BACKLOG) for the next one.
//
// What someone without the token can do is bounded (docs/reliability.md, "Security model"): at most
// MAX_HANDSHAKES connections may be waiting for their handshake at once, each has HANDSHAKE_MS to pass it
// (checked on every piece of input as well as by a timer, which a busy loop would delay) and may send at
// most HANDSHAKE_LINE_BYTES on a line; reading is linear in what it sends (json-lines.ts).

import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { DeviceChannel } from "./channel.js";
import { CONTROL_PROTOCOL, newChallenge, proof, proofMatches, sessionKey } from "./control-auth.js";
import { type ControlEndpoint, formatControlEndpoint } from "./control-endpoint.js";
import { hangUp, type LineSplitter, readLines, writeJsonLine } from "./json-lines.js";
import type { DeviceIdentity, FromDevice, TimedEvent, ToDevice } from "./protocol.js";
import { SealError, SealedLines } from "./sealed-lines.js";

/** Events kept for the next controller while none is connected. */
export const EVENT_BACKLOG = 2000;
/** Real ms a connection has to complete the handshake. */
export const HANDSHAKE_MS = 5000;
/** Connections waiting for their handshake at once; more are refused until one is done. */
export const MAX_HANDSHAKES = 8;
/** Longest line before the handshake is done (the `auth` answer is ~250 bytes). */
export const HANDSHAKE_LINE_BYTES = 4096;
/** Longest line from an authenticated controller (commands and settings; the answers go the other way). */
export const CONTROLLER_LINE_BYTES = 1024 * 1024;

type Listener = (message: ToDevice, reply: (m: FromDevice) => void) => void;

export interface SocketChannelOptions {
  readonly endpoint: ControlEndpoint;
  /** The shared secret; null only on a Unix socket (the file's permissions protect it). */
  readonly token: Buffer | null;
  /** Who the device is, for the `ready` of each new controller (null: not started yet). */
  readonly identity: () => DeviceIdentity | null;
  /** A line for the device's log (connections, refusals). */
  readonly log: (line: string) => void;
  /** Real ms a connection has to pass the handshake (default HANDSHAKE_MS). */
  readonly handshakeMs?: number;
}

/** One controller's connection, as the channel sees it. */
interface Connection {
  readonly socket: Socket;
  readonly peer: string;
  /** Sealing after the handshake (null: a Unix socket without a token, plain JSON lines). */
  sealed: SealedLines | null;
  authenticated: boolean;
  closing: boolean;
  splitter: LineSplitter | null;
  /** No longer waiting for its handshake (passed, refused or gone): counted once. */
  handshakeOver: () => void;
}

export class SocketChannel implements DeviceChannel {
  private readonly server: Server;
  private readonly controllers = new Set<Connection>();
  private handshaking = 0;
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

  /** Connections waiting for their handshake now. */
  get waiting(): number {
    return this.handshaking;
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
    for (const c of this.controllers) this.send(c, message);
  }

  /** Controllers come and go; the device runs on until it is stopped. */
  onGone(): void {}

  close(): void {
    for (const c of this.controllers) c.socket.destroy();
    this.server.close();
    const e = this.opts.endpoint;
    if (e.kind === "unix" && existsSync(e.path)) unlinkSync(e.path);
  }

  private send(c: Connection, message: FromDevice): void {
    if (c.closing || c.socket.destroyed || !c.socket.writable) return;
    if (c.sealed === null) writeJsonLine(c.socket, message);
    else c.socket.write(`${c.sealed.seal(message)}\n`);
  }

  private accept(socket: Socket): void {
    const peer = socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : "unix socket";
    socket.on("error", () => socket.destroy());
    const c: Connection = {
      socket,
      peer,
      sealed: null,
      authenticated: false,
      closing: false,
      splitter: null,
      handshakeOver: () => {},
    };
    if (this.handshaking >= MAX_HANDSHAKES) {
      this.refuse(c, `${MAX_HANDSHAKES} connections are already waiting for their handshake; try again`);
      return;
    }
    this.handshaking++;
    let waiting = true;
    const handshakeOver = (): void => {
      if (!waiting) return;
      waiting = false;
      this.handshaking--;
      clearTimeout(timer);
    };
    c.handshakeOver = handshakeOver;
    const limitMs = this.opts.handshakeMs ?? HANDSHAKE_MS;
    const tooLate = `no handshake within ${limitMs / 1000} s`;
    const deadline = performance.now() + limitMs;
    const late = (): boolean => !c.authenticated && performance.now() > deadline;
    const timer = setTimeout(() => {
      if (!c.authenticated) this.refuse(c, tooLate);
    }, limitMs);
    socket.on("close", () => {
      handshakeOver();
      if (this.controllers.delete(c)) this.opts.log(`controller ${peer} disconnected`);
    });
    // Before the reader: a peer that keeps the loop busy cannot outlive its deadline by sending more.
    socket.on("data", () => {
      if (late()) this.refuse(c, tooLate);
    });
    const token = this.opts.token;
    const challenge = token ? newChallenge() : null;
    c.splitter = readLines(
      socket,
      (line) => {
        if (c.closing) return false;
        if (c.authenticated) return this.received(c, line);
        if (token === null || challenge === null) return false;
        const ok = this.handshake(c, token, challenge, line);
        if (c.authenticated) handshakeOver();
        return ok;
      },
      {
        maxLineBytes: HANDSHAKE_LINE_BYTES,
        onTooLong: (limit) =>
          this.refuse(
            c,
            `a line longer than ${limit} bytes${c.authenticated ? "" : " before the handshake"}: closing`,
          ),
      },
    );
    if (challenge !== null)
      writeJsonLine(socket, {
        type: "challenge",
        challenge,
        protocol: CONTROL_PROTOCOL,
      } satisfies FromDevice);
    else {
      c.authenticated = true;
      handshakeOver();
      c.splitter.setLimits({ maxLineBytes: CONTROLLER_LINE_BYTES });
      this.welcome(c, undefined);
    }
  }

  /** The controller's answer to the challenge; false ends the connection. */
  private handshake(c: Connection, token: Buffer, challenge: string, line: string): boolean {
    let m: Partial<Extract<ToDevice, { type: "auth" }>>;
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      this.refuse(c, "expected the auth answer to the challenge (a JSON line)");
      return false;
    }
    if (m === null || typeof m !== "object" || m.type !== "auth") {
      this.refuse(c, "expected the auth answer to the challenge");
      return false;
    }
    if (m.protocol !== CONTROL_PROTOCOL) {
      this.refuse(
        c,
        `this device speaks control protocol ${CONTROL_PROTOCOL} (sealed messages), the controller ${m.protocol ?? 1}: use the same rocelab version on both`,
      );
      return false;
    }
    if (typeof m.challenge !== "string" || !/^[0-9a-f]{64}$/.test(m.challenge)) {
      this.refuse(c, "the auth answer carries no challenge of 64 hex digits");
      return false;
    }
    if (!proofMatches(token, "controller", challenge, m.proof)) {
      this.refuse(c, "wrong token");
      return false;
    }
    c.authenticated = true;
    c.sealed = new SealedLines(sessionKey(token, challenge, m.challenge), "device");
    c.splitter?.setLimits({ maxLineBytes: CONTROLLER_LINE_BYTES });
    this.welcome(c, proof(token, "device", m.challenge));
    return !c.closing;
  }

  /** A line of an authenticated controller; false ends the connection. */
  private received(c: Connection, line: string): boolean {
    let m: ToDevice;
    try {
      m = (c.sealed === null ? JSON.parse(line) : c.sealed.open(line)) as ToDevice;
    } catch (e) {
      this.refuse(c, e instanceof SealError ? e.message : "a line that is not JSON");
      return false;
    }
    if (m === null || typeof m !== "object") {
      this.refuse(c, "a message that is not an object");
      return false;
    }
    if (m.type === "init") {
      this.send(c, { type: "fatal", message: "this device was configured from its file; it takes no init" });
      return true;
    }
    this.listener?.(m, (r) => this.send(c, r));
    return true;
  }

  private welcome(c: Connection, deviceProof: string | undefined): void {
    const identity = this.opts.identity();
    if (identity === null) {
      this.refuse(c, "the device is still starting; try again");
      return;
    }
    this.send(c, {
      type: "ready",
      pid: process.pid,
      identity,
      ...(deviceProof !== undefined ? { proof: deviceProof } : {}),
    });
    this.controllers.add(c);
    this.opts.log(`controller ${c.peer} connected`);
    if (this.backlog.length > 0) {
      this.send(c, { type: "events", events: this.backlog });
      this.backlog = [];
    }
  }

  /** Says why (sealed, if the session is), logs it, and hangs up; nothing more is read. */
  private refuse(c: Connection, why: string): void {
    if (c.closing) return;
    this.opts.log(`refused controller ${c.peer}: ${why}`);
    this.send(c, { type: "refused", message: why });
    c.closing = true;
    c.handshakeOver();
    c.splitter?.stop();
    this.controllers.delete(c);
    hangUp(c.socket);
  }
}
