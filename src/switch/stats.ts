// The switch's counters as the flat tables of DeviceStats (`rocelab stats`, reports, the TUI): switch-wide
// counters, per port (with per-priority ones spelt out by their key template), and per queue. Read from
// the CounterSet's declarations; keys are computed once.

import type { Counters, Nanoseconds, PortStats, QueueStats } from "../device/contract.js";
import { type Counter, type CounterSet, Label, statsKey } from "../device/counters.js";
import { PRIORITIES } from "../wire/pfc.js";
import { DROP_REASONS } from "./drops.js";
import type { Mmu } from "./mmu.js";
import type { SwitchPort } from "./port.js";
import type { SwitchStats } from "./stats-types.js";

interface Keyed {
  readonly counter: Counter;
  /** Key per value index. */
  readonly keys: readonly string[];
}

const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Key lists by what they depend on (key template, labels, label sizes). Every switch with the same
 * number of ports declares the same counters, so a fabric of many switches shares one list per counter
 * instead of holding each key string once per switch.
 */
const KEY_LISTS = new Map<string, readonly string[]>();

function keysOf(c: Counter): readonly string[] {
  const labels = c.def.labels;
  const signature = `${c.def.key ?? c.def.name}|${labels.join(",")}|${c.dims.join(",")}`;
  const known = KEY_LISTS.get(signature);
  if (known !== undefined) return known;
  const size = c.dims.reduce((a, d) => a * d, 1);
  const keys: string[] = [];
  for (let i = 0; i < size; i++) {
    const values = labels.length === 2 ? [Math.floor(i / c.dims[1]!), i % c.dims[1]!] : [i];
    keys.push(statsKey(c.def, labels.length === 0 ? [] : values, DROP_REASONS));
  }
  KEY_LISTS.set(signature, keys);
  return keys;
}

export class SwitchStatsView {
  private readonly device: Keyed[] = [];
  private readonly port: Keyed[] = [];
  private readonly portPriority: Keyed[] = [];
  private readonly queue: Keyed[] = [];

  constructor(private readonly counters: CounterSet) {
    for (const c of counters.all) {
      const labels = c.def.labels;
      const keyed = { counter: c, keys: keysOf(c) };
      if (labels.length === 0 || same(labels, [Label.Reason])) this.device.push(keyed);
      else if (same(labels, [Label.Port])) this.port.push(keyed);
      else if (same(labels, [Label.Port, Label.Priority])) this.portPriority.push(keyed);
      else if (same(labels, [Label.Port, Label.Queue])) this.queue.push(keyed);
      else throw new Error(`switch counter ${c.def.name}: labels ${labels.join(",")} have no stats table`);
    }
  }

  stats(name: string, now: Nanoseconds, ports: readonly SwitchPort[], mmu: Mmu): SwitchStats {
    const counters: Counters = {};
    for (const k of this.device) {
      for (let i = 0; i < k.keys.length; i++) counters[k.keys[i]!] = this.counters.read(k.counter, i, now);
    }
    const portStats: PortStats[] = ports.map((ps) => {
      const port = ps.port;
      const c: Counters = {};
      for (const k of this.port) c[k.keys[port]!] = this.counters.read(k.counter, port, now);
      for (let p = 0; p < PRIORITIES; p++) {
        for (const k of this.portPriority) {
          const i = port * PRIORITIES + p;
          c[k.keys[i]!] = this.counters.read(k.counter, i, now);
        }
      }
      const queues: QueueStats[] = [];
      for (let q = 0; q < PRIORITIES; q++) {
        const qc: Counters = {};
        const i = port * PRIORITIES + q;
        for (const k of this.queue) qc[k.keys[i]!] = this.counters.read(k.counter, i, now);
        queues.push({
          queue: q,
          depthBytes: mmu.egressDepth(port, q),
          paused: ((ps.pausedQueues >> q) & 1) === 1,
          counters: qc,
        });
      }
      return { port, name: ps.cfg.name, up: ps.up, counters: c, queues };
    });
    return { kind: "switch", name, now, counters, ports: portStats };
  }
}
