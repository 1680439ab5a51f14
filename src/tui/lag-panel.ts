// The node view's link aggregation panel: each group of the switch with its members — state (active,
// selected, standby, down), LACP mux state, LACPDUs in and out, and the packets the group gave each member
// (the share shows how evenly the group's hash, LBN or DLB spreads the traffic).

import { readCounter } from "../device/counters.js";
import { LAG_COUNTERS, memberWord } from "../switch/features/lag-state.js";
import type { SwitchStats } from "../switch/stats-types.js";
import { formatCount, padLeft, padRight } from "./format.js";
import { type Segment, seg } from "./segments.js";
import { Tone } from "./theme.js";

const TONES: Record<string, Tone> = {
  active: Tone.Good,
  selected: Tone.Warn,
  standby: Tone.Warn,
  down: Tone.Bad,
};

export function lagLines(stats: SwitchStats): Segment[][] {
  const groups = stats.detail?.lag ?? [];
  if (groups.length === 0) return [];
  const lines: Segment[][] = [];
  for (const g of groups) {
    const frames = (port: number) => {
      const p = stats.ports.find((x) => x.port === port);
      return p === undefined ? 0 : readCounter(p.counters, LAG_COUNTERS.memberFrames);
    };
    const total = g.members.reduce((a, m) => a + frames(m.port), 0);
    lines.push([
      seg(`Link aggregation ${g.name}`, Tone.Heading),
      seg(`   ${g.mode}, ${g.balance}`, Tone.Dim),
    ]);
    lines.push([
      seg(
        `  ${padRight("PORT", 6)} ${padRight("STATE", 9)} ${padRight("MUX", 24)} ${padLeft("PDU IN", 7)} ${padLeft("PDU OUT", 7)} ${padLeft("PACKETS", 9)} ${padLeft("SHARE", 5)}`,
        Tone.Heading,
      ),
    ]);
    for (const m of g.members) {
      const p = stats.ports.find((x) => x.port === m.port);
      const c = (def: (typeof LAG_COUNTERS)[keyof typeof LAG_COUNTERS]) =>
        p === undefined ? 0 : readCounter(p.counters, def);
      const word = memberWord(m);
      const n = frames(m.port);
      lines.push([
        seg(`  ${padRight(m.name, 6)} `),
        seg(padRight(word, 9), TONES[word]),
        seg(` ${padRight(m.mux ?? "static", 24)}`),
        seg(
          ` ${padLeft(formatCount(c(LAG_COUNTERS.rxPdus)), 7)} ${padLeft(formatCount(c(LAG_COUNTERS.txPdus)), 7)}`,
        ),
        seg(
          ` ${padLeft(formatCount(n), 9)} ${padLeft(total > 0 ? `${Math.round((n / total) * 100)}%` : "-", 5)}`,
        ),
      ]);
    }
  }
  return lines;
}
