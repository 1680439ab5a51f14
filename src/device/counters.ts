// A device's counters, each declared once: its name (a legal Prometheus metric name), kind, unit, help
// text and labels (port, priority, queue, qp, reason). Values live in one typed array per counter, indexed
// row-major over its labels, so the hot path increments `values[i]` and nothing else. Reports, the TUI,
// `rocelab stats` and exporters read the declarations: nothing parses counter names.
//
// Kinds follow Prometheus (https://prometheus.io/docs/concepts/metric_types/): a `counter` only grows (and
// is zeroed by `clear`), a `gauge` is a level read when exported.

export const CounterKind = {
  Counter: "counter",
  Gauge: "gauge",
} as const;
export type CounterKind = (typeof CounterKind)[keyof typeof CounterKind];

export const Label = {
  Port: "port",
  Priority: "priority",
  Queue: "queue",
  Qp: "qp",
  Reason: "reason",
} as const;
export type Label = (typeof Label)[keyof typeof Label];

/** Legal Prometheus metric names: https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

export interface CounterDef {
  /** Unique within the device, a legal Prometheus metric name. */
  readonly name: string;
  readonly kind: CounterKind;
  /** packets, bytes, frames, ns, events, ... */
  readonly unit: string;
  readonly help: string;
  readonly labels: readonly Label[];
  /**
   * The key in the flat stats tables when it differs from `name`; `{priority}`, `{queue}` and `{reason}`
   * stand for the label values.
   */
  readonly key?: string;
}

/** A declared counter: its values, one per combination of label values. */
export interface Counter {
  readonly def: CounterDef;
  readonly values: Float64Array;
  /** Size of each label's dimension, in `def.labels` order. */
  readonly dims: readonly number[];
}

interface Entry extends Counter {
  /** Computed counters and gauges: the value at an index (the stored value is not used). */
  readonly read: ComputedRead | undefined;
  readonly reset: (() => void) | undefined;
}

/** The value of a computed counter or gauge at `index`, read at emulated time `now`. */
export type ComputedRead = (index: number, now: number) => number;

/** One exported value. */
export interface CounterSample {
  readonly def: CounterDef;
  /** Label values, in `def.labels` order. */
  readonly labels: readonly number[];
  readonly value: number;
}

export class CounterSet {
  private readonly entries: Entry[] = [];
  private readonly byName = new Map<string, Entry>();

  /**
   * @param sizes how many values each label takes (ports: highest port number + 1; reasons: the number of
   *   drop reasons the device declared).
   */
  constructor(private readonly sizes: Readonly<Partial<Record<Label, number>>>) {}

  /** A stored counter (or gauge the owner keeps up to date); `clear` zeroes counters, never gauges. */
  add(def: CounterDef): Float64Array {
    return this.insert(def, undefined, undefined).values;
  }

  /** A value computed when read (buffer occupancy, time paused so far); `reset` runs on `clear`. */
  computed(def: CounterDef, read: ComputedRead, reset?: () => void): void {
    this.insert(def, read, reset);
  }

  get all(): readonly Counter[] {
    return this.entries;
  }

  find(name: string): Counter | undefined {
    return this.byName.get(name);
  }

  /** The value of `name` at the given label values, at `now` (0 if undeclared). */
  value(name: string, now: number, ...labels: number[]): number {
    const e = this.byName.get(name);
    return e === undefined ? 0 : this.read(e, indexOf(e.dims, labels), now);
  }

  read(counter: Counter, index: number, now: number): number {
    const e = counter as Entry;
    return e.read !== undefined ? e.read(index, now) : e.values[index]!;
  }

  /** Zeroes every counter (kind counter); gauges keep their level. */
  clear(): void {
    for (const e of this.entries) {
      if (e.def.kind !== CounterKind.Counter) continue;
      if (e.reset !== undefined) e.reset();
      else e.values.fill(0);
    }
  }

  /** Every value of every counter at `now`, in declaration order. */
  *samples(now: number): Generator<CounterSample> {
    for (const e of this.entries) {
      const n = e.dims.reduce((a, d) => a * d, 1);
      for (let i = 0; i < n; i++)
        yield { def: e.def, labels: labelsOf(e.dims, i), value: this.read(e, i, now) };
    }
  }

  private insert(def: CounterDef, read: Entry["read"], reset: Entry["reset"]): Entry {
    if (!METRIC_NAME.test(def.name)) throw new Error(`counter name ${def.name} is not a legal metric name`);
    if (this.byName.has(def.name)) throw new Error(`counter ${def.name} declared twice`);
    const dims = def.labels.map((l) => {
      const size = this.sizes[l];
      if (size === undefined) throw new Error(`counter ${def.name}: no size for label ${l}`);
      return size;
    });
    const entry: Entry = {
      def,
      dims,
      values: new Float64Array(read === undefined ? dims.reduce((a, d) => a * d, 1) : 0),
      read,
      reset,
    };
    this.entries.push(entry);
    this.byName.set(def.name, entry);
    return entry;
  }
}

/** Row-major index of label values. */
export function indexOf(dims: readonly number[], labels: readonly number[]): number {
  let i = 0;
  for (let k = 0; k < dims.length; k++) i = i * dims[k]! + (labels[k] ?? 0);
  return i;
}

function labelsOf(dims: readonly number[], index: number): number[] {
  const out = new Array<number>(dims.length);
  let rest = index;
  for (let k = dims.length - 1; k >= 0; k--) {
    out[k] = rest % dims[k]!;
    rest = Math.floor(rest / dims[k]!);
  }
  return out;
}

/** The flat stats key of a counter at the given label values (`reasons` names the reason label). */
export function statsKey(
  def: CounterDef,
  labels: readonly number[],
  reasons: readonly string[] = [],
): string {
  const template = def.key ?? def.name;
  if (!template.includes("{")) return template;
  let key = template;
  def.labels.forEach((l, k) => {
    const v = labels[k]!;
    key = key.replace(`{${l}}`, l === Label.Reason ? (reasons[v] ?? String(v)) : String(v));
  });
  return key;
}

/** The device-wide counters of `set` (no labels, or only a reason) as a flat table at `now`. */
export function deviceTable(
  set: CounterSet,
  now: number,
  reasons: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of set.all) {
    const labels = c.def.labels;
    if (labels.length === 0) out[statsKey(c.def, [])] = set.read(c, 0, now);
    else if (labels.length === 1 && labels[0] === Label.Reason) {
      for (let i = 0; i < c.dims[0]!; i++) out[statsKey(c.def, [i], reasons)] = set.read(c, i, now);
    }
  }
  return out;
}

/**
 * The stats-table keys of `set`'s gauges: levels (buffer in use, a queue's watermark, a threshold), which a
 * reading at one time gives whole, where a counter's meaning is the difference between two readings
 * (a report's counters since its run's time 0: lab/stats-since.ts). Port and QP numbers are not part of a
 * key (each port has its own table), so every key appears once.
 */
export function levelKeys(set: CounterSet, reasons: readonly string[] = []): string[] {
  const keys = new Set<string>();
  for (const c of set.all) {
    if (c.def.kind !== CounterKind.Gauge) continue;
    // Only the labels a key template can name: priority, queue and reason (8, 8 and a few values).
    const named = c.def.labels.map((l, k) => (l === Label.Port || l === Label.Qp ? 1 : c.dims[k]!));
    const n = named.reduce((a, d) => a * d, 1);
    for (let i = 0; i < n; i++) keys.add(statsKey(c.def, labelsOf(named, i), reasons));
  }
  return [...keys];
}

/** The key of a counter without a per-priority template in its device, port or queue table. */
export function tableKey(def: CounterDef): string {
  return def.key ?? def.name;
}

/**
 * A declared counter's value in a stats table (a device's, a port's or a queue's). Every declared counter
 * is in its table, zeros included, so a counter the table lacks is a reader's mistake (another device's
 * counter, a template not filled in): it throws, naming the key, rather than reading as 0. `labels` fills
 * the key's templates: `{ priority: 3 }` for `pg{priority}_xoff`, `{ reason: "icrc" }` for a drop reason.
 */
export function readCounter(
  table: Readonly<Record<string, number>>,
  def: CounterDef,
  labels: Partial<Record<Label, number | string>> = {},
): number {
  let key = def.key ?? def.name;
  for (const [label, value] of Object.entries(labels)) key = key.replace(`{${label}}`, String(value));
  const v = table[key];
  if (v === undefined) throw new Error(`no counter ${key} (${def.name}) in this stats table`);
  return v;
}
