// The node view's one-line summary of a port: peer, state, utilisation, bytes each way, headroom, pause.

import type { PortStats } from "../device/contract.js";
import { readCounter } from "../device/counters.js";
import { PortCounter } from "../device/l2/port-counters.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import { type PortMetrics, peerOf } from "./derive.js";
import { formatBytes, formatPercent } from "./format.js";
import { type Segment, seg } from "./segments.js";
import type { DashboardState } from "./store.js";
import { marker, type Theme, Tone } from "./theme.js";

export function portSummary(
  state: DashboardState,
  node: string,
  p: PortStats,
  m: PortMetrics | undefined,
  theme: Theme,
  wide: boolean,
): Segment[] {
  const peer = state.snapshot ? peerOf(state.snapshot.links, node, p.port)?.peer : undefined;
  const k = p.counters;
  const out: Segment[] = [
    seg(`${p.name} → ${peer ?? "?"}  `, Tone.Heading),
    p.up ? seg("up", Tone.Good) : seg(marker(theme, "DOWN"), Tone.Bad),
    seg(
      `  util ${formatPercent(m?.util ?? null)}  tx ${formatBytes(readCounter(k, PortCounter.txBytes))}  rx ${formatBytes(readCounter(k, PortCounter.rxBytes))}`,
    ),
  ];
  if (k.headroom_bytes !== undefined && wide)
    out.push(seg(`  headroom ${formatBytes(readCounter(k, SwitchCounter.portHeadroom))}`));
  out.push(
    seg("  paused "),
    seg(formatPercent(m?.pausedFrac ?? 0), (m?.pausedFrac ?? 0) > 0 ? Tone.Pause : undefined),
    seg("  holding "),
    seg(formatPercent(m?.xoffFrac ?? 0), (m?.xoffFrac ?? 0) > 0 ? Tone.Warn : undefined),
  );
  return out;
}
