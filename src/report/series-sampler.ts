// The simulator's way to feed a SeriesRecorder: the same series, rows and order as
// `SeriesRecorder.sample` makes from device stats, read straight from the switch and NIC cores. No stats
// tables are built and every key has its slot, so a sample of a fabric that did not change costs a
// comparison per value: fine-grained sampling (`sample: 2us`) costs what it records.

import type { Nanoseconds } from "../device/contract.js";
import type { Counter } from "../device/counters.js";
import type { Nic } from "../nic/nic.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import type { Switch } from "../switch/switch.js";
import { PRIORITIES } from "../wire/pfc.js";
import { QP_CC_SERIES } from "./qp-cc-series.js";
import type { SeriesRecorder } from "./series-recorder.js";

interface SwitchSlots {
  sw: Switch;
  /** Per port in port order, per queue: the slot in queueDepth and in pauseState (the same index). */
  readonly queue: Int32Array;
  readonly shared: number;
  readonly headroom: number;
  readonly sharedCounter: Counter | undefined;
  readonly headroomCounter: Counter | undefined;
}

interface NicSlots {
  nic: Nic;
  /** Per QP in creation order: slots of rate_bps, alpha and goodput; filled as QPs appear. */
  readonly rate: number[];
  readonly alpha: number[];
  readonly goodput: number[];
  /** Per QP, per QP_CC_SERIES entry: the slot, or -1 until the value is first not 0 (series-recorder.ts). */
  readonly ccState: number[][];
  /** Bytes acknowledged (and READ bytes received) per QP at the previous sample. */
  readonly acked: number[];
  /** The same by QP number, kept for a restarted NIC (whose QPs are new objects). */
  readonly ackedByQpn: Map<number, number>;
}

export class SeriesSampler {
  private readonly switches: SwitchSlots[] = [];
  private readonly nics: NicSlots[] = [];
  private lastSampleAt: number | null = null;

  /** The devices are read from the maps at every sample (a restarted device replaces its entry). */
  constructor(
    private readonly recorder: SeriesRecorder,
    private readonly switchMap: ReadonlyMap<string, Switch>,
    private readonly nicMap: ReadonlyMap<string, Nic>,
  ) {
    const r = recorder;
    for (const sw of switchMap.values()) {
      const queue = new Int32Array(sw.portList.length * PRIORITIES);
      sw.portList.forEach((ps, i) => {
        for (let q = 0; q < PRIORITIES; q++) {
          const key = [sw.name, ps.cfg.name, q];
          const slot = r.queueDepth.slot(key);
          if (r.pauseState.slot(key) !== slot) throw new Error("queue-depth and pause-state slots differ");
          queue[i * PRIORITIES + q] = slot;
        }
      });
      this.switches.push({
        sw,
        queue,
        shared: r.buffer.slot([sw.name, "shared"]),
        headroom: r.buffer.slot([sw.name, "headroom"]),
        sharedCounter: sw.counters.find(SwitchCounter.bufferSharedUsed.name),
        headroomCounter: sw.counters.find(SwitchCounter.bufferHeadroomUsed.name),
      });
    }
    for (const nic of nicMap.values()) {
      this.nics.push({
        nic,
        rate: [],
        alpha: [],
        goodput: [],
        ccState: [],
        acked: [],
        ackedByQpn: new Map(),
      });
    }
  }

  /** Follows restarted devices: a new switch object has the same ports; a new NIC starts with no QPs. */
  private follow(): void {
    for (const s of this.switches) {
      const now = this.switchMap.get(s.sw.name);
      if (now !== undefined && now !== s.sw) s.sw = now;
    }
    for (const n of this.nics) {
      const now = this.nicMap.get(n.nic.name);
      if (now === undefined || now === n.nic) continue;
      n.nic.queuePairs.forEach((qp, i) => {
        if (i < n.acked.length) n.ackedByQpn.set(qp.qpn, n.acked[i]!);
      });
      n.nic = now;
      n.rate.length = 0;
      n.alpha.length = 0;
      n.goodput.length = 0;
      n.ccState.length = 0;
      n.acked.length = 0;
    }
  }

  /** Records one sample of every device at `now`. */
  sample(now: Nanoseconds): void {
    const r = this.recorder;
    this.follow();
    const dt = this.lastSampleAt === null ? 0 : now - this.lastSampleAt;
    for (const s of this.switches) {
      const { sw, queue } = s;
      const mmu = sw.mmu;
      const ports = sw.portList;
      for (let i = 0; i < ports.length; i++) {
        const ps = ports[i]!;
        const port = ps.port;
        const paused = ps.pausedQueues;
        for (let q = 0; q < PRIORITIES; q++) {
          const slot = queue[i * PRIORITIES + q]!;
          r.queueDepth.recordSlot(now, slot, mmu.egressDepth(port, q));
          r.pauseState.recordSlot(now, slot, (paused >> q) & 1);
        }
      }
      const c = sw.counters;
      r.buffer.recordSlot(now, s.shared, s.sharedCounter ? c.read(s.sharedCounter, 0, now) : 0);
      r.buffer.recordSlot(now, s.headroom, s.headroomCounter ? c.read(s.headroomCounter, 0, now) : 0);
    }
    for (const n of this.nics) {
      const qps = n.nic.queuePairs;
      const lineRate = n.nic.lineRate;
      const name = n.nic.name;
      for (let i = 0; i < qps.length; i++) {
        const qp = qps[i]!;
        if (i === n.rate.length) {
          n.rate.push(r.qpRate.slot([name, qp.qpn, "rate_bps"]));
          n.alpha.push(r.qpRate.slot([name, qp.qpn, "alpha"]));
          n.goodput.push(r.flowRate.slot([name, qp.qpn]));
          // A restarted NIC's QP of a number seen before keeps the slot it had.
          n.ccState.push(
            QP_CC_SERIES.map((c) =>
              r.qpRate.has([name, qp.qpn, c.metric]) ? r.qpRate.slot([name, qp.qpn, c.metric]) : -1,
            ),
          );
          n.acked.push(n.ackedByQpn.get(qp.qpn) ?? 0);
        }
        const rp = qp.cc;
        r.qpRate.recordSlot(now, n.rate[i]!, Math.round(qp.rate(lineRate)));
        r.qpRate.recordSlot(now, n.alpha[i]!, rp === null ? 0 : rp.alpha(now));
        const cc = n.ccState[i]!;
        for (let k = 0; k < QP_CC_SERIES.length; k++) {
          const v = QP_CC_SERIES[k]!.fromCc(rp);
          if (cc[k] === -1) {
            if (v === 0) continue;
            cc[k] = r.qpRate.slot([name, qp.qpn, QP_CC_SERIES[k]!.metric]);
          }
          r.qpRate.recordSlot(now, cc[k]!, v);
        }
        const acked = qp.requester.bytesAcked + qp.requester.readBytesReceived;
        if (dt > 0) r.flowRate.recordSlot(now, n.goodput[i]!, Math.round(((acked - n.acked[i]!) * 8e9) / dt));
        n.acked[i] = acked;
      }
    }
    this.lastSampleAt = now;
  }
}
