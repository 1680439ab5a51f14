// The forwarding table: longest-prefix match over the routes the lab computed, each resolving to the ECMP
// group of its equal-cost next hops. Members whose port is down are skipped at once (local repair), before
// the lab's recomputed routes arrive. Lookups are cached per destination address; the cache is dropped
// whenever the routes or a port's state change.

import { EcmpGroup, type PortUp } from "../lb/ecmp-group.js";
import type { Route } from "./config.js";

export interface FibEntry {
  readonly route: Route;
  readonly group: EcmpGroup;
}

/**
 * Destinations remembered. Every address a packet names gets an entry, so without a bound a sender of
 * random destinations (a scan, a fuzzer, a misconfigured host) grows the switch without limit; the live
 * port fuzz grew a leaf by 61 MB. Past the limit the cache starts again (lookups stay correct, a few miss).
 */
export const FIB_CACHE_LIMIT = 4096;

export class Fib {
  private entries: FibEntry[] = [];
  private groups: EcmpGroup[] = [];
  private readonly cache = new Map<number, FibEntry | null>();

  constructor(
    routes: readonly Route[],
    private readonly portUp: PortUp,
  ) {
    this.setRoutes(routes);
  }

  setRoutes(routes: readonly Route[]): void {
    // Routes with the same next hops share one group, as a switch's next-hop groups are shared by the
    // routes that use them (a group is its members and which of them are up: nothing of one route's).
    const groups = new Map<string, EcmpGroup>();
    this.entries = [...routes]
      .sort((a, b) => b.prefixLength - a.prefixLength)
      .map((route) => {
        const key = route.nextHops.map((h) => `${h.port}/${h.via}`).join(",");
        let group = groups.get(key);
        if (group === undefined) {
          group = new EcmpGroup(route.nextHops, this.portUp);
          groups.set(key, group);
        }
        return { route, group };
      });
    this.groups = [...groups.values()];
    this.cache.clear();
  }

  /** A port went down or up: group membership changed. */
  invalidate(): void {
    for (const g of this.groups) g.refresh();
    this.cache.clear();
  }

  /** Destinations in the lookup cache now (at most FIB_CACHE_LIMIT). */
  get cachedDestinations(): number {
    return this.cache.size;
  }

  lookup(dst: number): FibEntry | null {
    const cached = this.cache.get(dst);
    if (cached !== undefined) return cached;
    let found: FibEntry | null = null;
    for (const entry of this.entries) {
      const { route } = entry;
      const mask = route.prefixLength === 0 ? 0 : (0xffff_ffff << (32 - route.prefixLength)) >>> 0;
      if ((dst & mask) >>> 0 === route.prefix) {
        // A more specific route whose next hops are all down falls through to a less specific one.
        if (entry.group.live.length === 0) continue;
        found = entry;
        break;
      }
    }
    if (this.cache.size >= FIB_CACHE_LIMIT) this.cache.clear();
    this.cache.set(dst, found);
    return found;
  }
}
