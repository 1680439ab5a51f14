// The forwarding table's lookup cache is bounded (src/switch/fib.ts): packets to random destinations must not
// grow a switch without limit, and lookups stay correct across the cache starting again.
import t from "tap";
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
