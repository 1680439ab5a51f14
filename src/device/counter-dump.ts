// A device's counter registry as plain data, for exporters outside the device (the Prometheus endpoint of
// a live lab, the OpenMetrics series of a simulated run): each declaration once with all its values, so
// a live device sends one compact message per scrape instead of one object per value.

import type { CounterDef, CounterSet } from "./counters.js";

export interface CounterDump {
  readonly def: CounterDef;
  /** Size of each label's dimension, in `def.labels` order. */
  readonly dims: readonly number[];
  /** Every value, row-major over the labels (see counters.ts indexOf). */
  readonly values: readonly number[];
}

export interface RegistryDump {
  /** Names of the `reason` label's values. */
  readonly reasons: readonly string[];
  readonly counters: readonly CounterDump[];
}

/** Every counter of `set` read at `now`. */
export function dumpRegistry(set: CounterSet, now: number, reasons: readonly string[]): RegistryDump {
  const counters = set.all.map((c) => {
    const n = c.dims.reduce((a, d) => a * d, 1);
    const values = new Array<number>(n);
    for (let i = 0; i < n; i++) values[i] = set.read(c, i, now);
    return { def: c.def, dims: c.dims, values };
  });
  return { reasons, counters };
}
