// The lab's metrics as metric families: every counter of every device's registry, with the labels an
// operator filters on (lab, node, kind, port, priority, queue, reason), plus each NIC's QPs (label qp)
// and each device's emulated clock. One model for both exports: the Prometheus endpoint of a live lab
// (prometheus.ts) and the OpenMetrics series of a simulated run (openmetrics.ts).
//
// Names are the registry's (np_cnp_sent, rx_prio_pause, ecn_marked, ...), the names operators know from
// mlx5 and switch CLIs; a counter keeps its name without a `_total` suffix so that a live scrape and a
// backfilled simulated run give the same series.

import { type CounterDef, CounterKind, Label } from "../device/counters.js";
import type { QpStats } from "../nic/stats-types.js";
import type { DeviceMetrics } from "../runtime/realtime/protocol.js";

export interface MetricSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly kind: CounterKind;
  readonly help: string;
  readonly unit: string;
  /** Every label any sample of the family carries. */
  readonly labelNames: readonly string[];
  readonly samples: MetricSample[];
}

/** One device's metrics, and which of its port numbers are wired (the registry sizes ports by the highest). */
export interface DeviceMetricsEntry {
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly ports: readonly number[];
  readonly metrics: DeviceMetrics;
}

const BASE_LABELS = ["lab", "node", "kind"] as const;

/** Per-QP metrics from a NIC's QP table (DCQCN state and what the QP counted). */
const QP_METRICS: readonly (readonly [CounterDef, (q: QpStats) => number])[] = [
  [qpDef("qp_rate_bps", CounterKind.Gauge, "bits/s", "DCQCN current rate of the QP"), (q) => q.rateBps],
  [
    qpDef("qp_target_rate_bps", CounterKind.Gauge, "bits/s", "DCQCN target rate of the QP"),
    (q) => q.targetRateBps,
  ],
  [
    qpDef("qp_alpha", CounterKind.Gauge, "ratio", "DCQCN alpha (congestion estimate) of the QP"),
    (q) => q.alpha,
  ],
  [
    qpDef(
      "qp_window_bytes",
      CounterKind.Gauge,
      "bytes",
      "congestion window of the QP (HPCC, DCTCP; 0: none)",
    ),
    (q) => q.windowBytes,
  ],
  [
    qpDef("qp_rtt_ns", CounterKind.Gauge, "ns", "last RTT sample of the QP (TIMELY; 0: none)"),
    (q) => q.rttNs,
  ],
  [
    qpDef("qp_utilisation", CounterKind.Gauge, "ratio", "utilisation estimate U of the QP (HPCC; 0: none)"),
    (q) => q.utilisation,
  ],
  [qpDef("qp_bytes_sent", CounterKind.Counter, "bytes", "payload bytes the QP sent"), (q) => q.bytesSent],
  [qpDef("qp_cnp_handled", CounterKind.Counter, "packets", "CNPs the QP's RP acted on"), (q) => q.cnpHandled],
  [qpDef("qp_cnp_sent", CounterKind.Counter, "packets", "CNPs the QP's NP sent"), (q) => q.cnpSent],
  [
    qpDef("qp_ecn_marked", CounterKind.Counter, "packets", "CE-marked packets the QP received"),
    (q) => q.ecnMarked,
  ],
  [
    qpDef("qp_retransmits", CounterKind.Counter, "packets", "packets the QP sent again"),
    (q) => q.retransmits,
  ],
];

const EMULATED_TIME: CounterDef = {
  name: "device_emulated_time_seconds",
  kind: CounterKind.Gauge,
  unit: "seconds",
  help: "the device's emulated clock (rate() of a counter over rate() of this: per emulated second)",
  labels: [],
};

function qpDef(name: string, kind: CounterKind, unit: string, help: string): CounterDef {
  return { name, kind, unit, help, labels: [Label.Qp] };
}

class FamilySet {
  private readonly byName = new Map<string, MetricFamily & { labelSet: Set<string> }>();

  family(def: CounterDef): MetricFamily & { labelSet: Set<string> } {
    let f = this.byName.get(def.name);
    if (f === undefined) {
      const labelSet = new Set<string>(BASE_LABELS);
      f = {
        name: def.name,
        kind: def.kind,
        help: def.help,
        unit: def.unit,
        labelNames: [],
        samples: [],
        labelSet,
      };
      this.byName.set(def.name, f);
    } else if (f.kind !== def.kind) {
      throw new Error(`metric ${def.name} is a ${f.kind} on one device and a ${def.kind} on another`);
    }
    for (const l of def.labels) f.labelSet.add(l);
    return f;
  }

  all(): MetricFamily[] {
    return [...this.byName.values()].map(({ labelSet, ...f }) => ({ ...f, labelNames: [...labelSet] }));
  }
}

/** The families of a lab's devices, each family's samples in device order. */
export function metricFamilies(lab: string, devices: readonly DeviceMetricsEntry[]): MetricFamily[] {
  const set = new FamilySet();
  for (const d of devices) {
    const base = { lab, node: d.node, kind: d.kind };
    const wired = new Set(d.ports);
    const { registry, qps, now } = d.metrics;
    for (const c of registry.counters) {
      const f = set.family(c.def);
      const labels = c.def.labels;
      const index = new Array<number>(labels.length).fill(0);
      for (let i = 0; i < c.values.length; i++) {
        let rest = i;
        for (let k = labels.length - 1; k >= 0; k--) {
          index[k] = rest % c.dims[k]!;
          rest = Math.floor(rest / c.dims[k]!);
        }
        const portAt = labels.indexOf(Label.Port);
        if (portAt >= 0 && !wired.has(index[portAt]!)) continue;
        const named: Record<string, string> = { ...base };
        labels.forEach((l, k) => {
          // Ports by the names the CLI and the TUI use (eth1), reasons by name.
          named[l] =
            l === Label.Reason
              ? (registry.reasons[index[k]!] ?? String(index[k]))
              : l === Label.Port
                ? `eth${index[k]}`
                : String(index[k]);
        });
        f.samples.push({ labels: named, value: c.values[i]! });
      }
    }
    for (const [def, read] of QP_METRICS) {
      const f = set.family(def);
      for (const q of qps) f.samples.push({ labels: { ...base, qp: String(q.qpn) }, value: read(q) });
    }
    set.family(EMULATED_TIME).samples.push({ labels: base, value: now / 1e9 });
  }
  return set.all();
}
