// Entry point of a live device process: `node dist/runtime/live/device-main.js --lab NAME --node NODE`,
// started by the lab supervisor inside the node's network namespace with an IPC channel. It waits for its
// configuration, opens its ports and runs the same device core the simulator runs.

import { parseArgs } from "node:util";
import type { Device } from "../../device/contract.js";
import { dumpRegistry } from "../../device/counter-dump.js";
import { createRandom } from "../../device/prng.js";
import type { NicConfig } from "../../nic/config.js";
import { Nic } from "../../nic/nic.js";
import { DROP_REASONS as NIC_DROP_REASONS } from "../../nic/nic-ids.js";
import type { SwitchConfig } from "../../switch/config.js";
import { DROP_REASONS as SWITCH_DROP_REASONS } from "../../switch/drops.js";
import { Switch } from "../../switch/switch.js";
import { type DeviceClock, LiveClock } from "./clock.js";
import { ClockTable } from "./clock-table.js";
import { DeviceHost } from "./device-host.js";
import { type Dilation, DilationTimeline } from "./dilation.js";
import { nativeAddon } from "./native.js";
import { openPort, type PortIo, portBackend } from "./port-io.js";
import type { DeviceMetrics, FromDevice, InitMessage, SyncInit, ToDevice } from "./protocol.js";
import { SyncedClock } from "./synced-clock.js";

/** How often events and health go up to the supervisor while the device moves frames, real ms. */
const REPORT_INTERVAL_MS = 100;
/** How often an idle device (no frame in or out, no event) still reports its health, real ms. */
const IDLE_REPORT_INTERVAL_MS = 2000;

const { values } = parseArgs({ options: { lab: { type: "string" }, node: { type: "string" } } });
if (!values.lab || !values.node || !process.send) {
  process.stderr.write(
    "device-main is started by the rocelab supervisor (--lab, --node and an IPC channel)\n",
  );
  process.exit(2);
}
process.title = `rocelab-${values.lab}-${values.node}`;

const send = (m: FromDevice): void => {
  if (process.connected) process.send!(m);
};

let host: DeviceHost | null = null;
let device: Device | null = null;

function start(init: InitMessage): void {
  const dilation = init.dilationTable
    ? new DilationTimeline(
        new Float64Array(nativeAddon().mapShared(init.dilationTable.table, init.dilationTable.bytes)),
      )
    : init.dilation;
  const clock = createClock(init.epoch, dilation, init.sync);
  const ports = new Map<number, { io: PortIo; delayNs: number }>();
  const backend = portBackend(init.portIo);
  const rateBps = lineRateBps(init);
  for (const p of init.ports) {
    ports.set(p.port, { io: openPort(p.ifname, backend, rateBps, init.dilation), delayNs: p.delayNs });
  }
  host = new DeviceHost(clock, ports, createRandom(init.seed, `device:${init.node}`));
  device = createDevice(init, host);
  host.attach(device);
  // Pushed on change: an idle lab of a dozen processes must not keep the supervisor busy parsing health.
  let traffic = -1;
  let reportedAt = 0;
  setInterval(() => {
    const events = host!.drainEvents();
    if (events.length > 0) send({ type: "events", events });
    const moved = host!.framesIn + host!.framesOut;
    const now = performance.now();
    if (events.length === 0 && moved === traffic && now - reportedAt < IDLE_REPORT_INTERVAL_MS) return;
    traffic = moved;
    reportedAt = now;
    send({ type: "health", now: clock.now(), health: host!.health() });
  }, REPORT_INTERVAL_MS).unref();
  send({ type: "ready", pid: process.pid });
}

function createClock(epoch: string, dilation: Dilation, sync: SyncInit | undefined): DeviceClock {
  if (sync === undefined) return new LiveClock(BigInt(epoch), dilation);
  const table = new ClockTable(nativeAddon().mapShared(sync.table, sync.bytes));
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

function shutdown(code: number): void {
  host?.close();
  process.exit(code);
}

process.on("message", (raw) => {
  const m = raw as ToDevice;
  try {
    switch (m.type) {
      case "init":
        start(m);
        break;
      case "command": {
        const result = host!.control((now) => device!.command(m.command, now));
        send({ type: "reply", id: m.id, result });
        break;
      }
      case "stats":
        // Read-only: the time it reports at does not hold back frames still waiting for theirs.
        send({ type: "stats", id: m.id, stats: device!.stats(host!.clock.now()), health: host!.health() });
        break;
      case "metrics":
        send({ type: "metrics", id: m.id, metrics: deviceMetrics(device!, host!.clock.now()) });
        break;
      case "link":
        host!.control((now) => device!.setLinkState(m.port, m.up, now));
        break;
      case "shutdown":
        shutdown(0);
        break;
    }
  } catch (e) {
    send({ type: "fatal", message: (e as Error).stack ?? String(e) });
    shutdown(1);
  }
});

// The supervisor is our only reason to exist: if it goes away (even SIGKILLed), so do we.
process.on("disconnect", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));
