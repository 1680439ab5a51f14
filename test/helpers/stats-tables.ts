// Counter tables as the devices report them: every declared counter present and zero, so that a test's
// stats fixture names only the values it cares about and readers (TUI, report) see full tables, as they
// do from a real device. Built from a real switch and a real NIC, not from a list kept here.

import { pair } from "../nic/support/pair.js";
import { SwitchHarness } from "../switch/harness.js";

type Table = Readonly<Record<string, number>>;

export interface SwitchTables {
  readonly node: Table;
  readonly port: Table;
  readonly queue: Table;
}

export interface NicTables {
  readonly node: Table;
  readonly port: Table;
}

const zero = (t: Readonly<Record<string, number>>): Table =>
  Object.fromEntries(Object.keys(t).map((k) => [k, 0]));

let switchCache: SwitchTables | undefined;
let nicCache: NicTables | undefined;

/** A switch's node, port and queue tables with every counter at 0. */
export function switchTables(): SwitchTables {
  if (switchCache === undefined) {
    const h = new SwitchHarness({ ports: 1 });
    const s = h.sw.stats(0);
    const port = s.ports[0]!;
    const queue = port.queues?.[0];
    if (queue === undefined)
      throw new Error("a switch port's stats carry no queue table: the tables would be empty");
    switchCache = {
      node: zero(s.counters),
      port: zero(port.counters),
      queue: zero(queue.counters),
    };
  }
  return switchCache;
}

/** A NIC's node and port tables with every counter at 0. */
export function nicTables(): NicTables {
  if (nicCache === undefined) {
    const s = pair().a.stats(0);
    nicCache = { node: zero(s.counters), port: zero(s.ports[0]!.counters) };
  }
  return nicCache;
}
