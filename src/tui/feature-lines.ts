// The switch view's line for the elephant/mice and VXLAN features (switch/features/elephant.ts,
// adaptive-buffer.ts, vxlan-overlay.ts): shown only on a switch where one of them is doing something.

import { type CounterDef, readCounter } from "../device/counters.js";
import { DROP_COUNTER } from "../device/drops.js";
import { SwitchCounter } from "../switch/counter-defs.js";
import { DropReason as SwitchDrop } from "../switch/drops.js";
import { formatBytes, formatCount } from "./format.js";
import { type Segment, seg } from "./segments.js";
import { Tone } from "./theme.js";

/** A switch counter the feature lines show. */
const c = (k: Readonly<Record<string, number>>, def: CounterDef): number => readCounter(k, def);
/** A switch drop reason's counter. */
const drop = (k: Readonly<Record<string, number>>, reason: string): number =>
  readCounter(k, DROP_COUNTER, { reason });

/** "elephants …  adaptive buffer …  VTEP …", or null when none of those features is active. */
export function featureLine(k: Readonly<Record<string, number>>): Segment[] | null {
  const out: Segment[] = [];
  const tracked = c(k, SwitchCounter.elephantTableFlows);
  const detected = c(k, SwitchCounter.elephantFlowsDetected);
  if (tracked > 0 || detected > 0) {
    out.push(seg("elephants "), seg(formatCount(detected), detected > 0 ? Tone.Warn : undefined));
    out.push(seg(` of ${formatCount(tracked)} flows tracked`));
    const yellow = drop(k, SwitchDrop.Yellow);
    if (yellow > 0) out.push(seg("  yellow drops "), seg(formatCount(yellow), Tone.Bad));
  }
  const changes = c(k, SwitchCounter.adaptiveBufferChanges);
  if (changes > 0) {
    const t = c(k, SwitchCounter.adaptiveBufferThreshold);
    out.push(seg("  adaptive buffer "));
    out.push(t > 0 ? seg(`WRED from ${formatBytes(t)}`, Tone.Warn) : seg("tail drop"));
    out.push(
      seg(` (${formatCount(changes)} changes, ${formatCount(drop(k, SwitchDrop.AdaptiveWred))} dropped)`),
    );
  }
  const encap = c(k, SwitchCounter.vxlanEncapPackets);
  const decap = c(k, SwitchCounter.vxlanDecapPackets);
  if (encap > 0 || decap > 0) {
    const lost = c(k, SwitchCounter.vxlanCeLost);
    out.push(seg(`  VTEP encap ${formatCount(encap)} decap ${formatCount(decap)} CE copied `));
    out.push(seg(formatCount(c(k, SwitchCounter.vxlanCeCopied))), seg(" lost "));
    out.push(seg(formatCount(lost), lost > 0 ? Tone.Bad : undefined));
  }
  if (out.length === 0) return null;
  if (out[0]!.text.startsWith("  ")) out[0] = seg(out[0]!.text.trimStart(), out[0]!.tone);
  return out;
}
