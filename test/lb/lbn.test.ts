import t from "tap";
import { EcmpGroup } from "../../src/lb/ecmp-group.js";
import { ALGORITHM_CRC32, FlowHasher } from "../../src/lb/ecmp-hash.js";
import { Lbn } from "../../src/lb/lbn.js";
import { StaticEcmp } from "../../src/lb/static-ecmp.js";
import type { FlowFields } from "../../src/lb/strategy.js";

const ALL = 31;

function flow(inPort: number, srcPort: number): FlowFields {
  return {
    srcIp: 0x0a01_0001 + inPort,
    dstIp: 0x0a09_0007,
    protocol: 17,
    srcPort,
    dstPort: 4791,
    destQp: 0x100 + inPort,
    length: 1000,
    inPort,
  };
}

/** Egress ports 4, 5, 6 (H3C's Ports 4-6), listed out of order; peers' IPs make 4 < 5 < 6. */
function group(up: Set<number>): EcmpGroup {
  return new EcmpGroup(
    [
      { port: 6, via: 0x0a00_0030 },
      { port: 4, via: 0x0a00_0010 },
      { port: 5, via: 0x0a00_0020 },
    ],
    (p) => up.has(p),
  );
}

const index = (entries: Record<number, number>): Int32Array => {
  const a = new Int32Array(8).fill(-1);
  for (const [p, i] of Object.entries(entries)) a[Number(p)] = i;
  return a;
};

t.test("H3C's worked example: ports 1-3 at LBN 0-2 over a 3-member group -> members 0, 1, 2", (t) => {
  const lbn = new Lbn(index({ 1: 0, 2: 1, 3: 2 }), false, new StaticEcmp(ALL, ALGORITHM_CRC32, 7));
  const g = group(new Set([4, 5, 6]));
  t.same(
    [1, 2, 3].map((p) => lbn.select(flow(p, 0xc000), g, 0).port),
    [4, 5, 6],
    "Port 1 -> Port 4 (member 0), Port 2 -> Port 5, Port 3 -> Port 6",
  );
  // Every flow of one ingress port takes one egress port, whatever its 5-tuple.
  const ports = new Set<number>();
  for (let s = 0; s < 64; s++) ports.add(lbn.select(flow(2, 0xc000 + s * 31), g, 0).port);
  t.same([...ports], [5], "port-level: all of port 2's flows on member 1");
  t.end();
});

t.test("plain failover recomputes index mod live members: two ingress ports share a member", (t) => {
  const up = new Set([4, 5, 6]);
  const g = group(up);
  const lbn = new Lbn(index({ 1: 0, 2: 1, 3: 2 }), false, new StaticEcmp(ALL, ALGORITHM_CRC32, 7));
  up.delete(5);
  g.refresh();
  const out = [1, 2, 3].map((p) => lbn.select(flow(p, 0xc000), g, 0).port);
  t.same(out, [4, 6, 4], "live [4, 6]: 0 mod 2 = 0, 1 mod 2 = 1, 2 mod 2 = 0");
  t.end();
});

t.test("enhanced failover moves only the failed member's flows; the others keep their port", (t) => {
  const up = new Set([4, 5, 6]);
  const g = group(up);
  const ecmp = new StaticEcmp(ALL, ALGORITHM_CRC32, 7);
  const lbn = new Lbn(index({ 1: 0, 2: 1, 3: 2 }), true, ecmp);
  const flows = [1, 2, 3].flatMap((p) => Array.from({ length: 32 }, (_, s) => flow(p, 0xc000 + s * 97)));
  const before = flows.map((f) => lbn.select(f, g, 0).port);
  up.delete(5);
  g.refresh();
  const after = flows.map((f) => lbn.select(f, g, 0).port);
  const hasher = new FlowHasher(ALL, ALGORITHM_CRC32, 7);
  let moved = 0;
  for (let i = 0; i < flows.length; i++) {
    if (before[i] === 5) {
      moved++;
      t.equal(after[i], [4, 6][hasher.selectFlow(2, flows[i]!)], "re-hashed over the survivors");
    } else t.equal(after[i], before[i], "kept its member");
  }
  t.equal(moved, 32, "exactly the 32 flows of port 2 (member 1) moved");
  t.ok(new Set(after.filter((_, i) => before[i] === 5)).size === 2, "and they spread over both survivors");
  t.end();
});

t.test("ports without an LBN index are hashed by static ECMP", (t) => {
  const g = group(new Set([4, 5, 6]));
  const ecmp = new StaticEcmp(ALL, ALGORITHM_CRC32, 7);
  const lbn = new Lbn(index({ 1: 0 }), false, ecmp);
  for (let s = 0; s < 16; s++) {
    const f = flow(7, 0xc000 + s);
    t.equal(lbn.select(f, g, 0).port, ecmp.select(f, g, 0).port);
  }
  t.end();
});

t.test("enhanced failover keeps its numbering when the failed next hop is withdrawn from the route", (t) => {
  const ecmp = new StaticEcmp(ALL, ALGORITHM_CRC32, 7);
  const lbn = new Lbn(index({ 1: 0, 2: 1, 3: 2 }), true, ecmp);
  const plain = new Lbn(index({ 1: 0, 2: 1, 3: 2 }), false, ecmp);
  const flows = [1, 2, 3].flatMap((p) => Array.from({ length: 16 }, (_, s) => flow(p, 0xc000 + s * 97)));
  const full = group(new Set([4, 5, 6]));
  const before = flows.map((f) => lbn.select(f, full, 0).port);
  plain.select(flows[0]!, full, 0);
  // The routes after convergence: the group of the survivors only.
  const withdrawn = new EcmpGroup(
    [
      { port: 6, via: 0x0a00_0030 },
      { port: 4, via: 0x0a00_0010 },
    ],
    () => true,
  );
  const after = flows.map((f) => lbn.select(f, withdrawn, 0).port);
  for (let i = 0; i < flows.length; i++) if (before[i] !== 5) t.equal(after[i], before[i], "kept its member");
  t.ok(
    after.every((p, i) => before[i] !== 5 || p === 4 || p === 6),
    "port 2's flows re-hashed over the survivors",
  );
  t.same(
    [1, 2, 3].map((p) => plain.select(flow(p, 0xc000), withdrawn, 0).port),
    [4, 6, 4],
    "plain LBN renumbers over the new group",
  );
  // The link comes back: the full group again.
  t.same(
    [1, 2, 3].map((p) => lbn.select(flow(p, 0xc000), group(new Set([4, 5, 6])), 0).port),
    [4, 5, 6],
  );
  t.end();
});
