// Node names a lab keeps for its own processes: checked when a topology is read, so a lab never starts
// with a node whose process title or log would be mistaken for the supervisor's (lab/live/names.ts).

/**
 * Node names a lab cannot take: its own processes are titled `rocelab-<lab>-<role>` and log to
 * `<role>.log` beside the nodes' `<node>.log`, so a node named after a role would share its title (and
 * `down` could not tell them apart) and its log. Compared without case.
 */
export const RESERVED_NODE_NAMES = ["supervisor", "attach", "trace", "gen"] as const;
/** Prefixes of the same kind: UDP helpers (`udp-send-…`, `udp-recv-…`) and fuzz injectors (`fuzz-…`). */
export const RESERVED_NODE_PREFIXES = ["udp-", "fuzz-"] as const;

/** Null when `node` may name a node, else why not. */
export function reservedNodeProblem(node: string): string | null {
  const lower = node.toLowerCase();
  const clash =
    RESERVED_NODE_NAMES.find((r) => r === lower) ?? RESERVED_NODE_PREFIXES.find((p) => lower.startsWith(p));
  if (clash === undefined) return null;
  return `reserved for rocelab's own processes, titled rocelab-<lab>-${clash.endsWith("-") ? `${clash}…` : clash} and logging to ${clash.endsWith("-") ? `${clash}….log` : `${clash}.log`} (reserved: ${RESERVED_NODE_NAMES.join(", ")}, and names starting ${RESERVED_NODE_PREFIXES.join(" or ")})`;
}
