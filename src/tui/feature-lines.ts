// The switch view's line for the elephant/mice and VXLAN features (switch/features/elephant.ts,
// adaptive-buffer.ts, vxlan-overlay.ts): shown only on a switch where one of them is doing something.

import { formatBytes, formatCount } from "./format.js";
import { type Segment, seg } from "./segments.js";
import { Tone } from "./theme.js";

function c(counters: Readonly<Record<string, number>>, name: string): number {
  return counters[name] ?? 0;
}

/** "elephants …  adaptive buffer …  VTEP …", or null when none of those features is active. */
export function featureLine(k: Readonly<Record<string, number>>): Segment[] | null {
  const out: Segment[] = [];
  const tracked = c(k, "elephant_table_flows");
  const detected = c(k, "elephant_flows_detected");
  if (tracked > 0 || detected > 0) {
    out.push(seg("elephants "), seg(formatCount(detected), detected > 0 ? Tone.Warn : undefined));
    out.push(seg(` of ${formatCount(tracked)} flows tracked`));
    const yellow = c(k, "drop_yellow");
    if (yellow > 0) out.push(seg("  yellow drops "), seg(formatCount(yellow), Tone.Bad));
  }
  const changes = c(k, "adaptive_buffer_changes");
  if (changes > 0) {
    const t = c(k, "adaptive_buffer_threshold_bytes");
    out.push(seg("  adaptive buffer "));
    out.push(t > 0 ? seg(`WRED from ${formatBytes(t)}`, Tone.Warn) : seg("tail drop"));
    out.push(seg(` (${formatCount(changes)} changes, ${formatCount(c(k, "drop_adaptive_wred"))} dropped)`));
  }
  const encap = c(k, "vxlan_encap_packets");
  const decap = c(k, "vxlan_decap_packets");
  if (encap > 0 || decap > 0) {
    const lost = c(k, "vxlan_ce_lost");
    out.push(seg(`  VTEP encap ${formatCount(encap)} decap ${formatCount(decap)} CE copied `));
    out.push(seg(formatCount(c(k, "vxlan_ce_copied"))), seg(" lost "));
    out.push(seg(formatCount(lost), lost > 0 ? Tone.Bad : undefined));
  }
  if (out.length === 0) return null;
  if (out[0]!.text.startsWith("  ")) out[0] = seg(out[0]!.text.trimStart(), out[0]!.tone);
  return out;
}
