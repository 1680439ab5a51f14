// One live device, whoever started it: opens its ports, runs the same device core the simulator runs on
// the dilated clock, answers its controllers over a DeviceChannel (the supervisor's IPC, or a socket) and
// pushes events and health to them. device-main.ts (started by the lab supervisor) and the device
// entrypoint (lab/live/device-entry.ts) both run this.

import type { Device } from "../../device/contract.js";
import { dumpRegistry } from "../../device/counter-dump.js";
import { createRandom } from "../../device/prng.js";
import type { NicConfig } from "../../nic/config.js";
import { Nic } from "../../nic/nic.js";
import { DROP_REASONS as NIC_DROP_REASONS } from "../../nic/nic-ids.js";
import type { SwitchConfig } from "../../switch/config.js";
import { DROP_REASONS as SWITCH_DROP_REASONS } from "../../switch/drops.js";
import { Switch } from "../../switch/switch.js";
import { takeBaseline } from "../device-tables.js";
import type { DeviceChannel } from "./channel.js";
import { type DeviceClock, LiveClock } from "./clock.js";
import { ClockTable } from "./clock-table.js";
import { DeviceHost } from "./device-host.js";
import { type Dilation, DilationTimeline } from "./dilation.js";
import { GridReads } from "./grid-reads.js";
import { mapTable } from "./native.js";
import type { PortIo } from "./port.js";
import { capturePort, MAX_CAPTURE_SECONDS } from "./port-capture.js";
import { openPort, portBackend } from "./port-io.js";
import type {
  DeviceIdentity,
  DeviceMetrics,
  FromDevice,
  InitMessage,
  StatsBaseline,
  SyncInit,
  ToDevice,
} from "./protocol.js";
import { SyncedClock } from "./synced-clock.js";

export class DeviceRuntime {
  private host: DeviceHost | null = null;
  private device: Device | null = null;
  private init: InitMessage | null = null;
  /** The stats tables read at the time a `baseline` request named (null: none yet). */
  private baseline: StatsBaseline | null = null;
  /** The time series' reads on the scenario's grid (null: none asked for). */
  private grid: GridReads | null = null;
  private readonly startedAt = new Date().toISOString();

  constructor(private readonly channel: DeviceChannel) {
    channel.onMessage((m, reply) => this.handle(m, reply));
    // The supervisor is our only reason to exist: if it goes away (even SIGKILLed), so do we.
    channel.onGone(() => this.shutdown(0));
  }

  /** Who this device is (for a socket channel's `ready`); null before it started. */
  identity(): DeviceIdentity | null {
    if (!this.init || !this.host) return null;
    return {
      lab: this.init.lab,
      node: this.init.node,
      kind: this.init.kind,
      dilation: this.init.dilation,
      ...(this.init.reactionMs !== undefined ? { reactionMs: this.init.reactionMs } : {}),
      now: this.host.clock.now(),
      startedAt: this.startedAt,
    };
  }

  /** Opens the ports and starts the device; says `ready` to the controllers. */
  start(init: InitMessage): void {
    this.init = init;
    const dilation = init.dilationTable
      ? new DilationTimeline(new Float64Array(mapTable(init.dilationTable.table, init.dilationTable.bytes)))
      : init.dilation;
    const clock = createClock(init.epoch, dilation, init.sync);
    const ports = new Map<number, { io: PortIo; delayNs: number }>();
    const backend = portBackend(init.portIo);
    const rateBps = lineRateBps(init);
    for (const p of init.ports) {
      ports.set(p.port, { io: openPort(p.ifname, backend, rateBps, init.dilation), delayNs: p.delayNs });
    }
    const host = new DeviceHost(clock, ports, createRandom(init.seed, `device:${init.node}`));
    this.host = host;
    this.device = createDevice(init, host);
    host.attach(this.device);
    // Pushed on change: an idle lab of a dozen processes must not keep the supervisor busy parsing health,
    // nor wake itself for nothing (housekeeping.ts).
    let traffic = -1;
    host.startReporting(() => {
      const events = host.drainEvents();
      if (events.length > 0) this.channel.broadcast({ type: "events", events });
      const moved = host.framesIn + host.framesOut;
      const busy = events.length > 0 || moved !== traffic;
      traffic = moved;
      this.channel.broadcast({ type: "health", now: clock.now(), health: host.health() });
      return busy;
    });
    this.channel.broadcast({ type: "ready", pid: process.pid });
  }

  /** Reads the stats tables at emulated `at` (device-host.ts readAt), or now when it is already past. */
  private armBaseline(at: number): { ok: true; late: boolean } {
    const device = this.device!;
    const host = this.host!;
    this.baseline = null;
    const take = (t: number, late: boolean): void => {
      this.baseline = takeBaseline(device, at, t, late);
    };
    const onTime = host.readAt(at, (t) => take(t, false));
    if (!onTime) take(host.readNow(), true);
    return { ok: true, late: !onTime };
  }

  private capture(m: Extract<ToDevice, { type: "capture" }>, reply: (r: FromDevice) => void): Promise<void> {
    return captureFor(this.init!, m, reply);
  }

  shutdown(code: number): never {
    this.host?.close();
    this.channel.close();
    process.exit(code);
  }

  private handle(m: ToDevice, reply: (r: FromDevice) => void): void {
    try {
      switch (m.type) {
        case "init":
          this.start(m);
          break;
        case "command": {
          const result = this.host!.control((now) => this.device!.command(m.command, now));
          reply({ type: "reply", id: m.id, result });
          break;
        }
        case "stats":
          // Read-only: the time it reports at does not hold back frames still waiting for theirs.
          reply({
            type: "stats",
            id: m.id,
            stats: this.device!.stats(this.host!.readNow()),
            health: this.host!.health(),
          });
          break;
        case "metrics":
          reply({ type: "metrics", id: m.id, metrics: deviceMetrics(this.device!, this.host!.readNow()) });
          break;
        case "link":
          this.host!.control((now) => this.device!.setLinkState(m.port, m.up, now));
          break;
        case "capture":
          void this.capture(m, reply);
          break;
        case "frame-times": {
          const port = this.init!.ports.find((p) => p.port === m.port);
          const result = port
            ? { ok: true, ...this.host!.frameTimes(m.port, m.on) }
            : { ok: false, error: `${this.init!.node} has no port ${m.port}` };
          reply({ type: "reply", id: m.id, result });
          break;
        }
        case "baseline":
          reply({ type: "reply", id: m.id, result: m.at === null ? this.baseline : this.armBaseline(m.at) });
          break;
        case "series":
          if (m.at !== null) {
            const device = this.device!;
            this.grid = new GridReads(this.host!, (t) => device.stats(t), m.at, m.every ?? 1, m.count ?? 1);
          }
          reply({
            type: "reply",
            id: m.id,
            result: m.at === null ? (this.grid?.drain() ?? []) : { ok: true },
          });
          break;
        case "shutdown":
          this.shutdown(0);
          break;
        case "auth":
          // The socket channel's handshake, handled there; never reaches a running device.
          break;
      }
    } catch (e) {
      this.channel.broadcast({ type: "fatal", message: (e as Error).stack ?? String(e) });
      this.shutdown(1);
    }
  }
}

/** A capture the controller asked for; the device keeps running whatever tcpdump does. */
async function captureFor(
  init: InitMessage,
  m: Extract<ToDevice, { type: "capture" }>,
  reply: (r: FromDevice) => void,
): Promise<void> {
  const port = init.ports.find((p) => p.port === m.port);
  try {
    if (!port) throw new Error(`${init.node} has no port ${m.port}`);
    if (!(m.seconds > 0 && m.seconds <= MAX_CAPTURE_SECONDS))
      throw new Error(`a capture lasts 0-${MAX_CAPTURE_SECONDS} s, not ${m.seconds}`);
    const r = await capturePort(port.ifname, m.seconds, m.snaplen, (chunk) =>
      reply({ type: "capture-data", id: m.id, data: chunk.toString("base64") }),
    );
    reply({ type: "reply", id: m.id, result: { ok: true, ...r } });
  } catch (e) {
    reply({ type: "reply", id: m.id, result: { ok: false, error: (e as Error).message } });
  }
}

function createClock(epoch: string, dilation: Dilation, sync: SyncInit | undefined): DeviceClock {
  if (sync === undefined) return new LiveClock(BigInt(epoch), dilation);
  const table = new ClockTable(mapTable(sync.table, sync.bytes));
  const start = BigInt(epoch);
  const real = (): number => Number(process.hrtime.bigint() - start);
  return new SyncedClock(real, Number(start), dilation, table, sync.device, sync.ports, sync.graceMs * 1e6);
}

/** The fastest port of the device (ring sizes follow it; a NIC's host-stack port runs at its wire rate). */
function lineRateBps(init: InitMessage): number {
  return init.kind === "switch"
    ? Math.max(...(init.config as SwitchConfig).ports.map((p) => p.rateBps))
    : (init.config as NicConfig).port.rateBps;
}

function createDevice(init: InitMessage, h: DeviceHost): Device {
  switch (init.kind) {
    case "switch":
      return new Switch(init.config as SwitchConfig, h.env);
    case "nic":
      return new Nic(init.config as NicConfig, h.env);
    default:
      throw new Error(`unknown device kind ${init.kind}`);
  }
}

/** Read-only, like stats: the registry with its declarations, and a NIC's QPs. */
function deviceMetrics(d: Device, now: number): DeviceMetrics {
  if (d instanceof Switch)
    return { now, registry: dumpRegistry(d.counters, now, SWITCH_DROP_REASONS), qps: [] };
  if (d instanceof Nic)
    return { now, registry: dumpRegistry(d.counters, now, NIC_DROP_REASONS), qps: d.stats(now).detail.qps };
  throw new Error(`device ${d.name} has no counter registry`);
}
