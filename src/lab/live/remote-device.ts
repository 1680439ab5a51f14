// A device the lab did not start — the device entrypoint in a container (device-entry.ts) — reached over
// its socket control channel: the token handshake (runtime/realtime/control-auth.ts, both sides prove they
// hold the token), a check that the device is the node the endpoints file says, then the same messages
// as a spawned process's IPC (device-connection.ts), sealed (runtime/live/sealed-lines.ts). A lost connection makes the device "unreachable"
// and is retried until it is back (a container restart gives a fresh device: counters from zero).

import { createConnection, type Socket } from "node:net";
import {
  CONTROL_PROTOCOL,
  newChallenge,
  proof,
  proofMatches,
  sessionKey,
} from "../../runtime/realtime/control-auth.js";
import { type ControlEndpoint, formatControlEndpoint } from "../../runtime/realtime/control-endpoint.js";
import {
  type LineSplitter,
  MAX_LINE_BYTES,
  readLines,
  writeJsonLine,
} from "../../runtime/realtime/json-lines.js";
import type { DeviceIdentity, FromDevice, ToDevice } from "../../runtime/realtime/protocol.js";
import { SealedLines } from "../../runtime/realtime/sealed-lines.js";
import { HANDSHAKE_LINE_BYTES } from "../../runtime/realtime/socket-channel.js";
import { DeviceConnection, type DeviceLink, type DeviceStatus } from "./device-connection.js";
import { LIVE_REACTION_MS } from "./device-inits.js";

/** Real ms between attempts while a device cannot be reached. */
export const RECONNECT_MS = 2000;
const HANDSHAKE_MS = 5000;

/**
 * A device's control socket as a DeviceLink: plain JSON lines until the controller has answered the
 * challenge, sealed lines from then on (a plain `refused` is still taken until the device is ready: a
 * device refuses a wrong token before it has a key).
 */
class SocketLink implements DeviceLink {
  private listener: (m: FromDevice) => void = () => {};
  private sealed: SealedLines | null = null;
  private ready = false;
  private readonly splitter: LineSplitter;
  /** Why the link stopped reading (a line that could not be trusted), for the error. */
  problem = "";

  constructor(readonly socket: Socket) {
    this.splitter = readLines(socket, (line) => this.line(line), {
      maxLineBytes: HANDSHAKE_LINE_BYTES,
      onTooLong: (limit) => {
        this.problem = `the device sent a line longer than ${limit} bytes`;
      },
    });
  }

  private line(line: string): boolean {
    let m: FromDevice;
    try {
      if (this.sealed !== null && !(line.startsWith("{") && !this.ready))
        m = this.sealed.open(line) as FromDevice;
      else {
        m = JSON.parse(line) as FromDevice;
        if (this.sealed !== null && m.type !== "refused")
          throw new Error("an unsealed message after the handshake");
      }
    } catch (e) {
      this.problem = `a message from the device could not be trusted: ${(e as Error).message}`;
      return false;
    }
    if (m === null || typeof m !== "object") return false;
    if (m.type === "ready") {
      this.ready = true;
      this.splitter.setLimits({ maxLineBytes: MAX_LINE_BYTES });
    }
    this.listener(m);
    return true;
  }

  /** From now on both directions are sealed with `key`. */
  seal(key: Buffer): void {
    this.sealed = new SealedLines(key, "controller");
  }

  get connected(): boolean {
    return !this.socket.destroyed;
  }

  send(message: ToDevice): void {
    if (this.sealed === null) writeJsonLine(this.socket, message);
    else if (!this.socket.destroyed && this.socket.writable)
      this.socket.write(`${this.sealed.seal(message)}\n`);
  }

  onMessage(listener: (m: FromDevice) => void): void {
    this.listener = listener;
  }

  close(): void {
    this.socket.destroy();
  }
}

export interface RemoteDeviceOptions {
  readonly lab: string;
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly endpoint: ControlEndpoint;
  /** The shared token; null: the device takes none (a Unix socket). */
  readonly token: Buffer | null;
  /** The dilation the fabric runs at: a device at another one is refused. */
  readonly dilation: number;
  /** The PFC reaction budget the fabric's headroom was sized for: a device sized for another is refused. */
  readonly reactionMs: number;
  /** The lab name the devices' files must carry (absent: any). */
  readonly expectLab?: string;
}

export class RemoteDevice extends DeviceConnection {
  /** Who the device said it is at the latest handshake. */
  identity: DeviceIdentity | null = null;
  /** process.hrtime.bigint() when that identity arrived (its `now` was the device's time then). */
  identityAt = 0n;
  private stopping = false;
  private retry: NodeJS.Timeout | null = null;
  private lostBecause = "";

  constructor(private readonly opts: RemoteDeviceOptions) {
    super(opts.lab, opts.node, opts.kind);
  }

  override get endpoint(): string {
    return formatControlEndpoint(this.opts.endpoint);
  }

  exitDetail(): string {
    return `control connection to ${this.endpoint} lost (${this.lostBecause}); retrying every ${RECONNECT_MS / 1000} s`;
  }

  protected onControl(m: FromDevice): void {
    if (m.type === "fatal") this.lostBecause = `the device failed: ${m.message.split("\n")[0]}`;
    else if (m.type === "refused") this.lostBecause = `the device closed the connection: ${m.message}`;
  }

  /** Connects, retrying until `timeoutMs` has passed; the last failure is the error. */
  async connect(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.status = "starting";
    for (;;) {
      try {
        await this.connectOnce();
        return;
      } catch (e) {
        const refused = e instanceof HandshakeRefused;
        if (refused || Date.now() + RECONNECT_MS > deadline) {
          this.status = "unreachable";
          throw new Error(`${this.node} (${this.endpoint}): ${(e as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, RECONNECT_MS));
      }
    }
  }

  /** One attempt: connect, handshake, and from then on this socket is the device's channel. */
  private connectOnce(): Promise<void> {
    const e = this.opts.endpoint;
    const socket = e.kind === "unix" ? createConnection(e.path) : createConnection(e.port, e.host);
    const link = new SocketLink(socket);
    return new Promise<void>((resolve, reject) => {
      const fail = (err: Error): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      const timer = setTimeout(() => fail(new Error("no handshake within 5 s")), HANDSHAKE_MS);
      socket.once("error", (err) => fail(err));
      socket.once("close", () =>
        fail(
          link.problem
            ? new HandshakeRefused(link.problem)
            : new Error("the device closed the connection during the handshake"),
        ),
      );
      const ours = newChallenge();
      link.onMessage((m) => {
        if (m.type === "refused")
          fail(new HandshakeRefused(`the device refused the connection: ${m.message}`));
        else if (m.type === "challenge") {
          const token = this.opts.token;
          if (token === null) {
            fail(new HandshakeRefused("the device asks for a token: give tokenFile in the endpoints file"));
            return;
          }
          if (m.protocol !== CONTROL_PROTOCOL) {
            fail(
              new HandshakeRefused(
                `the device speaks control protocol ${m.protocol ?? 1}, this rocelab ${CONTROL_PROTOCOL} (sealed messages): use the same rocelab version on both`,
              ),
            );
            return;
          }
          link.send({
            type: "auth",
            proof: proof(token, "controller", m.challenge),
            challenge: ours,
            protocol: CONTROL_PROTOCOL,
          });
          link.seal(sessionKey(token, m.challenge, ours));
        } else if (m.type === "ready") {
          const token = this.opts.token;
          if (token !== null && !proofMatches(token, "device", ours, m.proof)) {
            fail(
              new HandshakeRefused(
                "the device did not prove it holds the token (a different token, or not a rocelab device)",
              ),
            );
            return;
          }
          const problem = this.identityProblem(m.identity);
          if (problem) {
            fail(new HandshakeRefused(problem));
            return;
          }
          clearTimeout(timer);
          socket.removeAllListeners("error");
          socket.removeAllListeners("close");
          this.adopt(link, m.pid, m.identity!);
          resolve();
        }
      });
    });
  }

  private identityProblem(id: DeviceIdentity | undefined): string | null {
    if (id === undefined) return "the device did not say who it is (not a rocelab device entrypoint?)";
    if (id.node !== this.node || id.kind !== this.kind)
      return `this is ${id.kind} ${id.node} of lab ${id.lab}, not ${this.kind} ${this.node}: check the endpoints file`;
    if (this.opts.expectLab !== undefined && id.lab !== this.opts.expectLab)
      return `this device is of lab ${id.lab}, the endpoints file says ${this.opts.expectLab}`;
    if (id.dilation !== this.opts.dilation)
      return `the device runs at dilation ${id.dilation}, the endpoints file says ${this.opts.dilation}`;
    const reaction = id.reactionMs ?? LIVE_REACTION_MS;
    if (reaction !== this.opts.reactionMs)
      return `the device's headroom was sized for ${reaction} ms of reaction, the endpoints file says reactionMs ${this.opts.reactionMs}`;
    return null;
  }

  private adopt(link: SocketLink, pid: number, identity: DeviceIdentity): void {
    const again = this.identity !== null;
    const restarted = again && this.identity!.startedAt !== identity.startedAt;
    this.identity = identity;
    this.identityAt = process.hrtime.bigint();
    this.pid = pid;
    this.adoptLink(link);
    this.status = "running";
    link.socket.on("error", () => link.socket.destroy());
    link.socket.on("close", () => this.lost(link.problem || "the connection closed"));
    if (again)
      this.emit(
        "note",
        `control connection to ${this.endpoint} is back${restarted ? ` (the device restarted at ${identity.startedAt}: its counters start from zero)` : ""}`,
      );
  }

  private lost(why: string): void {
    if (this.stopping || this.status !== "running") return;
    this.lostBecause ||= why;
    this.status = "unreachable";
    this.failPending(`${this.node} is unreachable (${this.lostBecause})`);
    this.emit("exit", "unreachable" satisfies DeviceStatus, null, null);
    this.lostBecause = "";
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.stopping) return;
      this.connectOnce().catch(() => this.scheduleRetry());
    }, RECONNECT_MS);
  }

  /** Closes the connection; the device, which the lab did not start, runs on. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.retry) clearTimeout(this.retry);
    this.link?.close();
    this.status = "stopped";
  }
}

/** The device said no (a wrong token, another node): retrying will not help. */
class HandshakeRefused extends Error {}
