// Schemas for values that carry units as people write them ("100G", "1us", "150KB", "20%"). Each turns
// what it accepts into the base unit (bits/s, ns, bytes, fractions) and, when it cannot, says what is
// allowed. Device feature modules build their config sections from these; the lab's file schemas too.

import { z } from "zod";
import { parseDuration, parseFraction, parseRate, parseRatio, parseSize } from "./units.js";

function unit<T>(parse: (v: string | number) => T | null, what: string, example: string) {
  return z.union([z.string(), z.number()]).transform((v, ctx): T => {
    const parsed = parse(v);
    if (parsed === null) {
      ctx.addIssue({
        code: "custom",
        message: `${JSON.stringify(v)} is not ${what} (for example ${example})`,
      });
      return z.NEVER;
    }
    return parsed;
  });
}

export const rate = unit(parseRate, "a rate", "100G, 25Gbps, 400Mb/s");
export const duration = unit(parseDuration, "a duration", "1us, 55µs, 2ms, 500ns");
export const size = unit(parseSize, "a size", "150KB = 150,000 bytes, 4KiB = 4,096 bytes, 9000");
export const fraction = unit(parseFraction, "a probability", "20%, 0.2, 1/8");
export const ratio = unit(parseRatio, "a positive ratio", "1/8, 0.125, 2");

/** Copies the keys `layer` sets over `base`: the merge of a settings layer into a resolved section. */
export function overlay<T extends object>(base: T, layer: Partial<T> | undefined): T {
  if (layer === undefined) return base;
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(layer)) if (v !== undefined) out[k] = v;
  return out as T;
}
