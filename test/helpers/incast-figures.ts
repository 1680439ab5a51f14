// The figures of an N-to-1 incast in a running lab, as an operator reads them from the counters: bytes
// and completions at the NICs, lossless drops, ECN marks and PFC pauses at the switches, CNPs both ways.
import type { Test } from "tap";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { LiveLab } from "../../src/lab/live/live-lab.js";

export interface IncastSpec {
  readonly to: string;
  /** The first N hosts other than `to` (what `inject incast --from N` picks). */
  readonly senders: readonly string[];
  readonly switches: readonly string[];
  /** Bytes per sender. */
  readonly size: number;
}

export interface Figures {
  readonly delivered: number;
  readonly completed: number;
  /** Lossless drops of the network (`dropped_lossless`). */
  readonly losslessDrops: number;
  /** Lossless drops a late process caused (free clocks: `dropped_lossless_late`), counted apart. */
  readonly lateLosslessDrops: number;
  /** The devices' worst timer lateness, emulated ns (what the lab reports of its own lateness). */
  readonly worstTimerLateNs: number;
  readonly ecnMarked: number;
  readonly pausesSent: number;
  readonly pausesReceived: number;
  readonly cnpSent: number;
  readonly cnpHandled: number;
  readonly retransmits: number;
}

function sum(counters: Record<string, number | undefined>, name: RegExp): number {
  return Object.entries(counters).reduce((a, [k, v]) => a + (name.test(k) ? (v ?? 0) : 0), 0);
}

/** The incast's counters across the fabric, as an operator reads them. */
async function figuresOf(lab: LiveLab, spec: IncastSpec): Promise<Omit<Figures, "worstTimerLateNs">> {
  const stats = async (node: string) =>
    (await lab.request<{ stats: AnyDeviceStats }>("stats", { node })).stats;
  const nic = async (node: string) => {
    const s = await stats(node);
    if (s.kind !== "nic") throw new Error(`${node} is not a NIC`);
    return s;
  };
  const h8 = await nic(spec.to);
  let completed = 0;
  let cnpHandled = 0;
  let retransmits = 0;
  for (const h of spec.senders) {
    const s = await nic(h);
    completed += s.detail.flows.length;
    cnpHandled += s.counters.rp_cnp_handled ?? 0;
    retransmits += s.detail.flows.reduce((a, f) => a + f.retransmits, 0);
  }
  let losslessDrops = 0;
  let lateLosslessDrops = 0;
  let ecnMarked = 0;
  let pausesSent = 0;
  let pausesReceived = 0;
  for (const sw of spec.switches) {
    const s = await stats(sw);
    losslessDrops += s.counters.dropped_lossless ?? 0;
    // NaN when a switch does not report it: the operator could not tell the two kinds apart.
    lateLosslessDrops += s.counters.dropped_lossless_late ?? Number.NaN;
    for (const p of s.ports) {
      pausesSent += sum(p.counters, /^tx_prio\d_pause$/);
      pausesReceived += sum(p.counters, /^rx_prio\d_pause$/);
      for (const q of p.queues ?? []) ecnMarked += q.counters.ecn_marked ?? 0;
    }
  }
  return {
    delivered: h8.detail.qps.reduce((a, q) => a + q.bytesDelivered, 0),
    completed,
    losslessDrops,
    lateLosslessDrops,
    ecnMarked,
    pausesSent,
    pausesReceived,
    cnpSent: h8.counters.np_cnp_sent ?? 0,
    cnpHandled,
    retransmits,
  };
}

/**
 * Runs the incast on `lab` with the preset `aggressive` (through `run`, where the lab's CLI runs) and waits
 * until every WRITE completed (`--wait`); reports the figures and the devices' worst lateness as a comment.
 */
export async function incastFigures(
  t: Test,
  lab: string,
  spec: IncastSpec,
  run: (args: readonly string[]) => Promise<{ exitCode?: number | undefined; stderr: string }>,
): Promise<Figures> {
  const preset = await run(["inject", "preset", "aggressive", "--name", lab]);
  t.equal(
    preset.exitCode,
    0,
    `${lab}: aggressive thresholds, so that a short incast meets ECN and PFC ${preset.stderr}`,
  );
  const r = await run([
    "inject",
    "incast",
    "--to",
    spec.to,
    "--from",
    String(spec.senders.length),
    "--size",
    String(spec.size),
    // Until the WRITEs complete: a bound on waiting, not on how fast the lab is.
    "--wait",
    "110",
    "--name",
    lab,
  ]);
  t.equal(r.exitCode, 0, `${lab}: incast completed ${r.stderr}`);
  // Over the lab's control socket from this process (a CLI process per read would cost the devices CPU).
  const client = await LiveLab.connect(lab);
  try {
    const f = await figuresOf(client, spec);
    const status = await client.request<{
      devices: { health: { timerLateMaxNs: number; lagMaxMs: number } | null }[];
    }>("status");
    const late = Math.max(...status.devices.map((d) => d.health?.timerLateMaxNs ?? 0));
    const lag = Math.max(...status.devices.map((d) => d.health?.lagMaxMs ?? 0));
    t.comment(
      `${lab}: ${JSON.stringify(f)}; worst timer lateness ${late} ns emulated, event-loop lag ${lag.toFixed(1)} ms real`,
    );
    return { ...f, worstTimerLateNs: late };
  } finally {
    await client.close();
  }
}
