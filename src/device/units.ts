// Units in configuration files. Rates in bits/s ("100G", "25Gbps", "400Mb/s"), durations in ns ("1us",
// "55µs", "2ms"), sizes in bytes ("150KB" = 150,000; "4KiB" = 4,096). Plain numbers are taken in the base
// unit (bits/s, ns, bytes). Every parser returns null on input it does not understand, so the schema can
// say what is allowed.

const RATE_UNITS: Record<string, number> = {
  "": 1,
  k: 1e3,
  m: 1e6,
  g: 1e9,
  t: 1e12,
};

/** "100G", "100Gbps", "100 Gb/s", "400M", 1e9 -> bits per second. */
export function parseRate(input: string | number): number | null {
  if (typeof input === "number") return Number.isFinite(input) && input > 0 ? input : null;
  const m = /^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmgt]?)(?:b(?:ps|\/s|it\/s)?)?\s*$/i.exec(input);
  if (!m) return null;
  const value = Number(m[1]) * RATE_UNITS[m[2]!.toLowerCase()]!;
  return value > 0 ? value : null;
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  ms: 1e6,
  s: 1e9,
};

/** "1us", "55µs", "2ms", "0.5s", 1000 -> integer nanoseconds. */
export function parseDuration(input: string | number): number | null {
  if (typeof input === "number") return Number.isFinite(input) && input >= 0 ? Math.round(input) : null;
  const m = /^\s*([0-9]*\.?[0-9]+)\s*(ns|us|µs|ms|s)\s*$/i.exec(input);
  if (!m) return null;
  return Math.round(Number(m[1]) * DURATION_UNITS[m[2]!.toLowerCase()]!);
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** "150KB" (decimal), "4KiB" (binary), "9000B", 4096 -> integer bytes. */
export function parseSize(input: string | number): number | null {
  if (typeof input === "number") return Number.isFinite(input) && input >= 0 ? Math.round(input) : null;
  const m = /^\s*([0-9]*\.?[0-9]+)\s*(b|kb|mb|gb|kib|mib|gib)?\s*$/i.exec(input);
  if (!m) return null;
  return Math.round(Number(m[1]) * SIZE_UNITS[(m[2] ?? "b").toLowerCase()]!);
}

/** A probability as a fraction ("20%", 0.2) -> 0..1. */
export function parseFraction(input: string | number): number | null {
  if (typeof input === "number") return input >= 0 && input <= 1 ? input : null;
  const m = /^\s*([0-9]*\.?[0-9]+)\s*%\s*$/.exec(input);
  if (m) {
    const v = Number(m[1]) / 100;
    return v <= 1 ? v : null;
  }
  const frac = /^\s*([0-9]+)\s*\/\s*([0-9]+)\s*$/.exec(input);
  if (frac && Number(frac[2]) > 0) {
    const v = Number(frac[1]) / Number(frac[2]);
    return v <= 1 ? v : null;
  }
  return null;
}

/** A positive ratio, as a number or a fraction ("1/8", 0.125, 8) -> number. */
export function parseRatio(input: string | number): number | null {
  if (typeof input === "number") return Number.isFinite(input) && input > 0 ? input : null;
  const frac = /^\s*([0-9]*\.?[0-9]+)\s*\/\s*([0-9]*\.?[0-9]+)\s*$/.exec(input);
  if (frac && Number(frac[2]) > 0 && Number(frac[1]) > 0) return Number(frac[1]) / Number(frac[2]);
  const plain = /^\s*([0-9]*\.?[0-9]+)\s*$/.exec(input);
  return plain && Number(plain[1]) > 0 ? Number(plain[1]) : null;
}

// Printing quantities in the units people write them in (the lab, the CLI, the TUI, reports).

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
