// An egress queue rebuilt from its packets' enqueue and dequeue events, kept at its largest: which packets
// it held at its peak (flow, data or ACK, bytes, the input port each came in on) and how long it had been
// building (since it last held at most LOW_BYTES). sim-vs-ns3 `--core-queues` feeds it the fat tree's
// core ports from both simulators (ns3-core-queues.ts).

/** A packet in an egress queue. */
export interface QueuedPacket {
  /** "hA>hB": the data flow it belongs to (an ACK: the flow it acknowledges). */
  readonly flow: string;
  readonly ack: boolean;
  /** The bytes the queue counts for it. */
  readonly bytes: number;
  readonly inPort: number;
}

/** One packet joining (`enqueue`) or leaving an egress queue, identified by `key` within its port. */
export interface QueueEvent {
  readonly t: number;
  readonly port: string;
  readonly enqueue: boolean;
  readonly key: string;
  readonly packet: QueuedPacket;
}

/** A port's queue at its largest (bytes). */
export interface QueuePeak {
  readonly port: string;
  readonly t: number;
  readonly bytes: number;
  readonly packets: readonly QueuedPacket[];
  /** Since the queue last held at most LOW_BYTES, ns. */
  readonly buildNs: number;
}

/** A queue this low is not building (two full-size data packets of either simulator). */
export const LOW_BYTES = 2_600;

interface PortState {
  readonly held: Map<string, QueuedPacket>;
  bytes: number;
  lowSince: number;
}

/** The peak of every port in `events`, which must be in time order (a dequeue after its own enqueue). */
export function queuePeaks(events: Iterable<QueueEvent>): Map<string, QueuePeak> {
  const ports = new Map<string, PortState>();
  const peaks = new Map<string, QueuePeak>();
  for (const e of events) {
    let s = ports.get(e.port);
    if (s === undefined) {
      s = { held: new Map(), bytes: 0, lowSince: e.t };
      ports.set(e.port, s);
    }
    if (e.enqueue) {
      s.held.set(e.key, e.packet);
      s.bytes += e.packet.bytes;
      const p = peaks.get(e.port);
      if (p === undefined || s.bytes > p.bytes) {
        const packets = [...s.held.values()];
        peaks.set(e.port, { port: e.port, t: e.t, bytes: s.bytes, packets, buildNs: e.t - s.lowSince });
      }
    } else {
      const p = s.held.get(e.key);
      if (p === undefined) throw new Error(`${e.port}: ${e.key} leaves a queue it never joined`);
      s.held.delete(e.key);
      s.bytes -= p.bytes;
    }
    if (s.bytes <= LOW_BYTES) s.lowSince = e.t;
  }
  return peaks;
}

/** What a peak holds: packets, data packets, ACKs, data flows, the largest flow's packets, input ports. */
export interface PeakMakeup {
  readonly packets: number;
  readonly data: number;
  readonly acks: number;
  readonly ackBytes: number;
  readonly flows: number;
  /** Data packets of each flow, most first ("hA>hB:n"). */
  readonly byFlow: readonly string[];
  /** Input ports the data packets came in on. */
  readonly dataInputs: number;
}

export function peakMakeup(p: QueuePeak): PeakMakeup {
  const data = p.packets.filter((x) => !x.ack);
  const flows = new Map<string, number>();
  for (const x of data) flows.set(x.flow, (flows.get(x.flow) ?? 0) + 1);
  const acks = p.packets.length - data.length;
  return {
    packets: p.packets.length,
    data: data.length,
    acks,
    ackBytes: p.packets.reduce((s, x) => s + (x.ack ? x.bytes : 0), 0),
    flows: flows.size,
    byFlow: [...flows].sort((a, b) => b[1] - a[1]).map(([f, n]) => `${f}:${n}`),
    dataInputs: new Set(data.map((x) => x.inPort)).size,
  };
}
