// The forwarding table's lookup cache is bounded (src/switch/fib.ts): packets to random destinations must not
// grow a switch without limit, and lookups stay correct across the cache starting again. Routes share their
// next-hop lists and groups, as a switch's next-hop groups are shared.
import t from "tap";
import { planAddresses } from "../../src/scenario/address-plan.js";
import { fatTreeTopology } from "../../src/scenario/fat-tree.js";
import { computeRoutes } from "../../src/scenario/routing.js";
import { topologyFile } from "../../src/scenario/schema.js";
import { resolveTopology } from "../../src/scenario/topology.js";
import { FIB_CACHE_LIMIT, Fib } from "../../src/switch/fib.js";

const routes = [
  { prefix: 0x0a01_0000, prefixLength: 16, nextHops: [{ port: 1, via: 0x0a00_0001 }] },
  { prefix: 0, prefixLength: 0, nextHops: [{ port: 2, via: 0x0a00_0003 }] },
];

t.test("random destinations keep the cache within its limit, and every lookup right", async (t) => {
  const fib = new Fib(routes, () => true);
  let x = 12345;
  let most = 0;
  for (let i = 0; i < 3 * FIB_CACHE_LIMIT; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const dst = i % 2 === 0 ? (0x0a01_0000 | (x & 0xffff)) >>> 0 : x;
    const entry = fib.lookup(dst);
    const expected = (dst & 0xffff_0000) >>> 0 === 0x0a01_0000 ? 16 : 0;
    if (entry?.route.prefixLength !== expected) t.fail(`dst ${dst.toString(16)}: wrong route`);
    most = Math.max(most, fib.cachedDestinations);
  }
  t.ok(most <= FIB_CACHE_LIMIT, `cache held at most ${most} destinations (limit ${FIB_CACHE_LIMIT})`);
  t.ok(most > FIB_CACHE_LIMIT / 2, "and it does cache");
});

t.test("routes with the same next hops share one group; groups follow their ports", async (t) => {
  const up = new Set([1, 2]);
  const hops = () => [
    { port: 1, via: 0x0a00_0001 },
    { port: 2, via: 0x0a00_0003 },
  ];
  const fib = new Fib(
    [
      { prefix: 0x0a01_0001, prefixLength: 32, nextHops: hops() },
      { prefix: 0x0a01_0002, prefixLength: 32, nextHops: hops() },
      { prefix: 0x0a01_0003, prefixLength: 32, nextHops: [{ port: 1, via: 0x0a00_0001 }] },
    ],
    (p) => up.has(p),
  );
  const group = (h: number) => fib.lookup(0x0a01_0000 + h)!.group;
  const [a, b, c] = [group(1), group(2), group(3)];
  t.equal(a, b, "two routes over ports 1 and 2: one group");
  t.not(a, c, "a route over port 1 alone: another");
  up.delete(2);
  fib.invalidate();
  t.same(
    fib.lookup(0x0a01_0002)!.group.live.map((m) => m.port),
    [1],
    "a port down: the shared group's live members follow",
  );
});

t.test("a fat tree's switch: thousands of routes over a handful of next-hop lists", async (t) => {
  const topo = resolveTopology(topologyFile.parse(fatTreeTopology({ k: 8 })), "k8", null);
  const routes = computeRoutes(topo, planAddresses(topo));
  for (const sw of ["c1", "p1a1", "p1e1"]) {
    const list = routes.get(sw)!;
    const distinct = new Set(list.map((r) => r.nextHops)).size;
    t.ok(
      list.length > 300 && distinct * 20 < list.length,
      `${sw}: ${list.length} routes, ${distinct} next-hop lists`,
    );
  }
});
