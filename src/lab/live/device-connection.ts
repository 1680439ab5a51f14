// A device as the lab's controllers see it, however it is reached: requests with ids and their answers,
// pushed events and health, and its status. The transport is a DeviceLink: the IPC channel of a process
// the supervisor spawned (device-process.ts), or a socket to a device it did not start
// (remote-device.ts). The fleet (device-fleet.ts) drives every device through this class only.

import { EventEmitter } from "node:events";
import type {
  DeviceMetrics,
  FromDevice,
  Health,
  TimedEvent,
  ToDevice,
} from "../../runtime/realtime/protocol.js";
import type { AnyDeviceStats } from "../device-stats.js";

const REQUEST_TIMEOUT_MS = 10_000;

/** The lab's side of a device's control channel. */
export interface DeviceLink {
  /** False once the channel is gone. */
  readonly connected: boolean;
  send(message: ToDevice): void;
  /** Every message from the device (one listener; a later call replaces it). */
  onMessage(listener: (message: FromDevice) => void): void;
  close(): void;
}

/**
 * "unreachable": a device the lab did not start whose control connection is lost (the connection is
 * retried); the other states are those of a process the supervisor started.
 */
export type DeviceStatus = "starting" | "running" | "crashed" | "killed" | "stopped" | "unreachable";

export interface DeviceEvents {
  events: [events: readonly TimedEvent[]];
  health: [now: number, health: Health];
  exit: [status: DeviceStatus, code: number | null, signal: string | null];
  /** Something the lab's event log should say about the device (a reconnection). */
  note: [detail: string];
}

export abstract class DeviceConnection extends EventEmitter<DeviceEvents> {
  status: DeviceStatus = "stopped";
  pid: number | null = null;
  health: Health | null = null;
  /** Emulated time of the last health report. */
  lastNow = 0;
  restarts = 0;
  protected link: DeviceLink | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** Captures running: where their pcap chunks go. */
  private readonly captures = new Map<number, (chunk: Buffer) => void>();

  constructor(
    readonly lab: string,
    readonly node: string,
    readonly kind: "switch" | "nic",
  ) {
    super();
  }

  /** Where the control channel reaches the device, for a device the lab did not start. */
  get endpoint(): string | undefined {
    return undefined;
  }

  /** What the lab's event log says when the device stops answering. */
  abstract exitDetail(status: DeviceStatus, code: number | null, signal: string | null): string;

  /** Orderly stop of what this connection owns (a process, or only the connection). */
  abstract stop(): Promise<void>;

  /** Makes `link` this device's channel: its messages are handled here from now on. */
  protected adoptLink(link: DeviceLink): void {
    this.link = link;
    link.onMessage((m) => this.dispatch(m));
  }

  /** Hands a message that is not an answer, event or health report to the subclass (ready, fatal). */
  protected abstract onControl(message: FromDevice): void;

  private dispatch(m: FromDevice): void {
    switch (m.type) {
      case "reply":
      case "stats":
      case "metrics": {
        const p = this.pending.get(m.id);
        if (p) {
          this.pending.delete(m.id);
          p.resolve(
            m.type === "reply"
              ? m.result
              : m.type === "metrics"
                ? m.metrics
                : { stats: m.stats, health: m.health },
          );
        }
        break;
      }
      case "events":
        this.emit("events", m.events);
        break;
      case "capture-data":
        this.captures.get(m.id)?.(Buffer.from(m.data, "base64"));
        break;
      case "health":
        this.health = m.health;
        this.lastNow = m.now;
        this.emit("health", m.now, m.health);
        break;
      default:
        this.onControl(m);
    }
  }

  /** Every request still waiting fails with `why` (the device went away). */
  protected failPending(why: string): void {
    for (const p of this.pending.values()) p.reject(new Error(why));
    this.pending.clear();
  }

  send(message: ToDevice): void {
    if (this.link?.connected) this.link.send(message);
  }

  /**
   * tcpdump on the device's `port` for `seconds`, run by the device in its own namespace; `onData` gets the
   * pcap stream. Resolves to what tcpdump counted.
   */
  async capture(
    port: number,
    seconds: number,
    snaplen: number,
    onData: (chunk: Buffer) => void,
  ): Promise<{ frames: number; bytes: number }> {
    const id = this.nextId;
    this.captures.set(id, onData);
    try {
      const r = (await this.request(
        { type: "capture", port, seconds, snaplen },
        seconds * 1000 + REQUEST_TIMEOUT_MS,
      )) as { ok: true; frames: number; bytes: number } | { ok: false; error: string };
      if (!r.ok) throw new Error(`${this.node}: ${r.error}`);
      return { frames: r.frames, bytes: r.bytes };
    } finally {
      this.captures.delete(id);
    }
  }

  request(message: { type: "command"; command: unknown }): Promise<unknown>;
  request(message: { type: "stats" }): Promise<{ stats: AnyDeviceStats; health: Health }>;
  request(message: { type: "metrics" }): Promise<DeviceMetrics>;
  request(
    message: { type: "capture"; port: number; seconds: number; snaplen: number },
    timeoutMs: number,
  ): Promise<unknown>;
  request(message: { type: "frame-times"; port: number; on: boolean }): Promise<unknown>;
  request(message: { type: "baseline"; at: number | null }): Promise<unknown>;
  request(message: { type: "series"; at: number | null; every?: number; count?: number }): Promise<unknown>;
  request(
    message:
      | { type: "command"; command: unknown }
      | { type: "baseline"; at: number | null }
      | { type: "series"; at: number | null; every?: number; count?: number }
      | { type: "frame-times"; port: number; on: boolean }
      | { type: "stats" }
      | { type: "metrics" }
      | { type: "capture"; port: number; seconds: number; snaplen: number },
    timeoutMs = REQUEST_TIMEOUT_MS,
  ): Promise<unknown> {
    if (this.status !== "running" || !this.link?.connected) {
      return Promise.reject(new Error(`${this.node} is ${this.status}`));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.node} did not answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send({ ...message, id } as ToDevice);
    });
  }
}
