// How the lab, the CLI and the TUI print quantities in the units people write them in (see
// device/units.ts for parsing them).

export function formatRate(bps: number): string {
  if (bps >= 1e12) return `${trim(bps / 1e12)}T`;
  if (bps >= 1e9) return `${trim(bps / 1e9)}G`;
  if (bps >= 1e6) return `${trim(bps / 1e6)}M`;
  if (bps >= 1e3) return `${trim(bps / 1e3)}K`;
  return `${trim(bps)}`;
}

export function formatDuration(ns: number): string {
  if (ns >= 1e9) return `${trim(ns / 1e9)}s`;
  if (ns >= 1e6) return `${trim(ns / 1e6)}ms`;
  if (ns >= 1e3) return `${trim(ns / 1e3)}us`;
  return `${trim(ns)}ns`;
}

export function formatSize(bytes: number): string {
  if (bytes >= 1e9) return `${trim(bytes / 1e9)}GB`;
  if (bytes >= 1e6) return `${trim(bytes / 1e6)}MB`;
  if (bytes >= 1e3) return `${trim(bytes / 1e3)}KB`;
  return `${trim(bytes)}B`;
}

function trim(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const fixed = v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2);
  // Drop trailing zeros after the decimal point only ("2.50" -> "2.5", "940" stays).
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}
