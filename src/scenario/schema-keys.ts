// The keys an object schema allows at a path of the input, for error messages that say what is allowed
// where a key is unknown ("unknown key "dilaton" (allowed: dilation, ...)"). Walks a zod 4 schema along
// the path through wrappers (optional, default, pipe, lazy, ...), arrays, records, tuples and unions; in a
// union it follows the alternative that knows most of the keys the input has at that path.
import type { z } from "zod";

type Def = { type: string } & Record<string, unknown>;
const defOf = (s: z.core.$ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema after its wrappers: the one that decides what the value may be. */
function unwrap(s: z.core.$ZodType, depth = 0): z.core.$ZodType {
  if (depth > 32) return s;
  const def = defOf(s);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return unwrap(def.innerType as z.core.$ZodType, depth + 1);
    case "pipe":
      return unwrap(def.in as z.core.$ZodType, depth + 1);
    case "lazy":
      return unwrap((def.getter as () => z.core.$ZodType)(), depth + 1);
    default:
      return s;
  }
}

function objectKeys(s: z.core.$ZodType): string[] | undefined {
  const def = defOf(s);
  return def.type === "object" ? Object.keys(def.shape as object) : undefined;
}

/** The schemas `s` may be at `value` (one, or a union's alternatives), unwrapped. */
function alternatives(s: z.core.$ZodType, depth = 0): z.core.$ZodType[] {
  const u = unwrap(s);
  const def = defOf(u);
  if (def.type === "union" && depth < 8)
    return (def.options as z.core.$ZodType[]).flatMap((o) => alternatives(o, depth + 1));
  if (def.type === "intersection" && depth < 8)
    return [
      ...alternatives(def.left as z.core.$ZodType, depth + 1),
      ...alternatives(def.right as z.core.$ZodType, depth + 1),
    ];
  return [u];
}

function child(s: z.core.$ZodType, key: PropertyKey): z.core.$ZodType | undefined {
  const def = defOf(s);
  switch (def.type) {
    case "object":
      return (
        (def.shape as Record<string, z.core.$ZodType>)[String(key)] ??
        (def.catchall as z.core.$ZodType | undefined)
      );
    case "array":
      return def.element as z.core.$ZodType;
    case "record":
      return def.valueType as z.core.$ZodType;
    case "tuple":
      return (def.items as z.core.$ZodType[])[Number(key)] ?? (def.rest as z.core.$ZodType | undefined);
    default:
      return undefined;
  }
}

/**
 * The keys allowed at `path` of `data` by `schema`, sorted; undefined when the path does not lead to an
 * object schema (the caller then says only which key is unknown).
 */
export function allowedKeysAt(
  schema: z.core.$ZodType,
  data: unknown,
  path: readonly PropertyKey[],
): string[] | undefined {
  let candidates: { schema: z.core.$ZodType; value: unknown }[] = [{ schema, value: data }];
  for (const key of path) {
    const next: typeof candidates = [];
    for (const c of candidates) {
      const value =
        c.value !== null && typeof c.value === "object"
          ? (c.value as Record<PropertyKey, unknown>)[key]
          : undefined;
      for (const alt of alternatives(c.schema)) {
        const s = child(alt, key);
        if (s !== undefined) next.push({ schema: s, value });
      }
    }
    if (next.length === 0) return undefined;
    candidates = next;
  }
  let best: { keys: string[]; known: number } | undefined;
  for (const c of candidates) {
    const present = c.value !== null && typeof c.value === "object" ? Object.keys(c.value) : [];
    for (const alt of alternatives(c.schema)) {
      const keys = objectKeys(alt);
      if (keys === undefined) continue;
      const known = present.filter((k) => keys.includes(k)).length;
      if (best === undefined || known > best.known) best = { keys, known };
    }
  }
  return best === undefined ? undefined : [...best.keys].sort();
}
