// The live-port fuzz: mutated frames (the frame mutator's, as in the simulator fuzz) injected into a real
// veth of a running lab, so that they arrive on a port of a live switch or NIC process through the real
// port path (AF_PACKET ring, batching, the device core). The injector runs in the peer's namespace
// (live-injector.ts); this side watches the target: its process (same pid, still running, no crash
// event), its counters (the port received the frames; the malformed ones are counted as malformed, not as
// lossless drops) and its memory (RSS sampled from /proc while the frames arrive).

import { readFileSync } from "node:fs";
import { execa } from "execa";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import type { LabEvent } from "../../src/lab/lab.js";
import type { LiveLab } from "../../src/lab/live/live-lab.js";
import { nsName } from "../../src/lab/live/names.js";
import { distPath } from "../../src/lab/live/paths.js";
import type { LabStatus } from "../../src/lab/live/supervisor.js";
import { planAddresses, portKey } from "../../src/scenario/address-plan.js";
import { linkAt, type Topology } from "../../src/scenario/topology.js";
import { macToString } from "../../src/wire/bytes.js";
import type { InjectorReport } from "./live-injector.js";

export interface LivePortFuzzOptions {
  /** The device whose port is fuzzed (a switch or a host's NIC) and the port. */
  readonly node: string;
  readonly port: number;
  readonly frames: number;
  readonly seed: string;
  /** Real frames per second (default 2000). */
  readonly rate?: number;
  /** RSS growth, kB, above which the fuzz counts as a leak (default 65536: 64 MB). */
  readonly rssLimitKb?: number;
}

export interface LivePortFuzzReport {
  readonly target: string;
  /** Where the frames were injected: the other end of the link. */
  readonly from: string;
  readonly injected: InjectorReport;
  readonly pid: { readonly before: number | null; readonly after: number | null };
  readonly statusAfter: string;
  /** Supervisor events about the target's process during the fuzz (a crash would be one). */
  readonly processEvents: readonly string[];
  /** Frames the target's port counted received during the fuzz. */
  readonly rxDelta: number;
  /** The target's counters that rose (port counters summed as `port.NAME`). */
  readonly rose: Readonly<Record<string, number>>;
  readonly rssKb: { readonly before: number; readonly peak: number; readonly after: number };
  /** What a robust device would not have done; empty when it survived. */
  readonly problems: readonly string[];
}

/**
 * Counters whose rise means a lossless packet was lost to the fabric: none may be accounted to fuzz frames.
 * (A switch counts an unroutable RoCE packet as a lossless drop, `drop_no_route`: fuzz frames addressed to
 * nowhere may be that, and no more.)
 */
const LOSSLESS_DROPS = ["drop_headroom_exhausted", "rx_discards_phy", "drop_link_down"] as const;
/** Counters where a device files frames it could not use: some must rise under fuzz. */
const MALFORMED = [
  "drop_malformed",
  "rx_not_for_us",
  "rx_ignored",
  "drop_icrc",
  "drop_unknown_qp",
  "dropped_lossy",
];

/** Flat counters plus every port counter summed as `port.NAME`. */
export function flatten(s: AnyDeviceStats): Record<string, number> {
  const out: Record<string, number> = { ...s.counters };
  for (const p of s.ports)
    for (const [k, v] of Object.entries(p.counters)) out[`port.${k}`] = (out[`port.${k}`] ?? 0) + v;
  return out;
}

function portRx(s: AnyDeviceStats, port: number): number {
  if (s.kind === "nic") return s.counters.rx_packets ?? 0;
  return s.ports.find((p) => p.name === `eth${port}`)?.counters.rx_packets ?? 0;
}

export function rssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** A device's stats from the lab's supervisor. */
export async function statsOf(lab: LiveLab, node: string): Promise<AnyDeviceStats> {
  return (await lab.request<{ stats: AnyDeviceStats }>("stats", { node })).stats;
}

/** Frames of the neighbour's own (ARP, pauses) a port may count during a fuzz besides the injected ones. */
const BACKGROUND_SLACK = 100;
/** Longest wait, real ms, for the target to take in the last injected frames. */
const SETTLE_MS = 10_000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Fuzzes `opts.node`'s port `opts.port` of the running lab `labName` (topology `topo`). */
export async function fuzzLivePort(
  lab: LiveLab,
  labName: string,
  topo: Topology,
  opts: LivePortFuzzOptions,
): Promise<LivePortFuzzReport> {
  const attached = linkAt(topo, opts.node, opts.port);
  if (!attached) throw new Error(`${opts.node}:eth${opts.port} is not linked`);
  const peer = attached.peer;
  const mac = planAddresses(topo).ports.get(portKey(opts.node, opts.port))!.mac;
  const device = async () =>
    (await lab.request<LabStatus>("status")).devices.find((d) => d.node === opts.node)!;
  const before = await device();
  if (before.status !== "running" || before.pid === null)
    throw new Error(`${opts.node} is ${before.status}: nothing to fuzz`);
  const statsBefore = await statsOf(lab, opts.node);
  const eventsBefore = (await lab.request<LabEvent[]>("events", { limit: 10_000 })).length;
  const rss = { before: rssKb(before.pid), peak: 0, after: 0 };
  rss.peak = rss.before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rss.peak = Math.max(rss.peak, rssKb(before.pid!));
      await sleep(200);
    }
  })();
  const r = await execa(
    "ip",
    [
      "netns",
      "exec",
      nsName(labName, peer.node),
      process.execPath,
      distPath("tools/fuzz/live-injector.js"),
      "--lab",
      labName,
      "--ifname",
      `eth${peer.port}`,
      "--dst-mac",
      macToString(mac),
      "--frames",
      String(opts.frames),
      "--seed",
      opts.seed,
      "--rate",
      String(opts.rate ?? 2000),
    ],
    { reject: false, env: { NODE_OPTIONS: "" } },
  );
  if (r.exitCode !== 0) {
    sampling = false;
    await sampler;
    throw new Error(`the injector in ${peer.node} failed (${r.exitCode}): ${r.stderr}`);
  }
  const injected = JSON.parse(r.stdout.trim().split("\n").pop()!) as InjectorReport;
  const deliverable = injected.sent - injected.kernelDropped;
  // Let the last frames through the ring and the device: wait (up to SETTLE_MS) until the port has
  // counted as many frames as were sent, or the device is gone.
  const settleUntil = Date.now() + SETTLE_MS;
  let after = await device();
  while (after.status === "running" && Date.now() < settleUntil) {
    const s = await statsOf(lab, opts.node);
    if (portRx(s, opts.port) - portRx(statsBefore, opts.port) >= deliverable) break;
    await sleep(250);
    after = await device();
  }
  sampling = false;
  await sampler;
  after = await device();
  rss.after = after.pid === null ? 0 : rssKb(after.pid);
  rss.peak = Math.max(rss.peak, rss.after);
  const events = (await lab.request<LabEvent[]>("events", { limit: 10_000 }))
    .slice(eventsBefore)
    .filter((e) => e.device === opts.node && /process/.test(e.detail ?? ""))
    .map((e) => e.detail ?? "");
  const problems: string[] = [];
  if (after.status !== "running") problems.push(`${opts.node} is ${after.status} after the fuzz`);
  if (after.pid !== before.pid)
    problems.push(`${opts.node}'s process changed (${before.pid} -> ${after.pid})`);
  if (after.restarts !== before.restarts) problems.push(`${opts.node} was restarted`);
  for (const e of events) problems.push(`${opts.node}: ${e}`);
  let rose: Record<string, number> = {};
  let rxDelta = 0;
  if (after.status === "running") {
    const statsAfter = await statsOf(lab, opts.node);
    const a = flatten(statsAfter);
    const b = flatten(statsBefore);
    rose = Object.fromEntries(
      Object.entries(a)
        .filter(([k, v]) => v > (b[k] ?? 0))
        .map(([k, v]) => [k, v - (b[k] ?? 0)]),
    );
    rxDelta = portRx(statsAfter, opts.port) - portRx(statsBefore, opts.port);
    // Every frame the kernel delivers is counted, and nothing is counted twice (beyond a little of the
    // neighbour's own traffic: ARP, pauses).
    if (rxDelta < deliverable || rxDelta > deliverable + BACKGROUND_SLACK)
      problems.push(
        `eth${opts.port} counted ${rxDelta} frames received; ${deliverable} of the ${injected.sent} injected reached it`,
      );
    for (const k of LOSSLESS_DROPS)
      if ((rose[k] ?? 0) > 0)
        problems.push(`${k} rose by ${rose[k]}: a fuzz frame was taken as a lossless drop`);
    if (!MALFORMED.some((k) => (rose[k] ?? 0) > 0))
      problems.push(`none of ${MALFORMED.join(", ")} rose: the malformed frames went uncounted`);
  }
  const limit = opts.rssLimitKb ?? 65_536;
  if (rss.peak - rss.before > limit)
    problems.push(`RSS grew by ${rss.peak - rss.before} kB (limit ${limit} kB)`);
  return {
    target: `${opts.node}:eth${opts.port}`,
    from: `${peer.node}:eth${peer.port}`,
    injected,
    pid: { before: before.pid, after: after.pid },
    statusAfter: after.status,
    processEvents: events,
    rxDelta,
    rose,
    rssKb: rss,
    problems,
  };
}
