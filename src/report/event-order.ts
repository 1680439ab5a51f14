// The event log's order, the same in both runtimes: by emulated time, then by device name, then in the
// order each device emitted them. Within one nanosecond the simulator hands events over in its processing
// order (the tie rule: every device's frames before every device's timers) and a live lab in the order
// its devices' reports reach the supervisor, while each device emits its own events in the same order in
// both (docs/fidelity.md, "The tie rule"); so this order makes the two runtimes' events.jsonl the same
// bytes when their runs are the same.

/** The stamp at the end of a line as the runtimes write it (stampEvent: `…,"t":123,"device":"leaf1"}`). */
const TAIL = /"t":(-?[0-9.e+-]+),"device":"((?:[^"\\]|\\.)*)"\}$/;

interface Key {
  readonly t: number;
  readonly device: string;
  readonly i: number;
}

function keyOf(line: string, i: number): Key {
  const m = TAIL.exec(line);
  if (m !== null) return { t: Number(m[1]), device: m[2]!, i };
  const e = JSON.parse(line) as { t?: number; device?: string };
  return { t: e.t ?? 0, device: e.device ?? "", i };
}

/** `lines` (JSON events with `t` and `device`) by time, then device name, then their own order. */
export function orderEvents(lines: readonly string[]): string[] {
  const keys = lines.map(keyOf);
  keys.sort((a, b) => a.t - b.t || (a.device < b.device ? -1 : a.device > b.device ? 1 : 0) || a.i - b.i);
  return keys.map((k) => lines[k.i]!);
}
