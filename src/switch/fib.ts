// The forwarding table: longest-prefix match over the routes the lab computed, each with its equal-cost
// next hops. Next hops through a port that is down are skipped at once (local repair), before the lab's
// recomputed routes arrive. Lookups are cached per destination address; the cache is dropped whenever the
// routes or a port's state change.

import type { NextHop, Route } from "./config.js";

export interface FibEntry {
  readonly route: Route;
  /** Next hops whose port is up, in route order. */
  readonly live: readonly NextHop[];
}

export class Fib {
  private routes: Route[] = [];
  private readonly cache = new Map<number, FibEntry | null>();
  private portUp: (port: number) => boolean;

  constructor(routes: readonly Route[], portUp: (port: number) => boolean) {
    this.portUp = portUp;
    this.setRoutes(routes);
  }

  setRoutes(routes: readonly Route[]): void {
    this.routes = [...routes].sort((a, b) => b.prefixLength - a.prefixLength);
    this.cache.clear();
  }

  get all(): readonly Route[] {
    return this.routes;
  }

  /** A port went down or up: next-hop liveness changed. */
  invalidate(): void {
    this.cache.clear();
  }

  lookup(dst: number): FibEntry | null {
    const cached = this.cache.get(dst);
    if (cached !== undefined) return cached;
    let found: FibEntry | null = null;
    for (const route of this.routes) {
      const mask = route.prefixLength === 0 ? 0 : (0xffff_ffff << (32 - route.prefixLength)) >>> 0;
      if ((dst & mask) >>> 0 === route.prefix) {
        const live = route.nextHops.filter((h) => this.portUp(h.port));
        // A more specific route whose next hops are all down falls through to a less specific one.
        if (live.length === 0) continue;
        found = { route, live };
        break;
      }
    }
    this.cache.set(dst, found);
    return found;
  }
}
