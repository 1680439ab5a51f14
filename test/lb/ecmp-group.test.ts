import t from "tap";
import { EcmpGroup } from "../../src/lb/ecmp-group.js";
import { ALGORITHM_CRC32, FlowHasher } from "../../src/lb/ecmp-hash.js";
import { StaticEcmp } from "../../src/lb/static-ecmp.js";

t.test("members are ordered by the peer's IP whatever the route lists; live follows port state", (t) => {
  const up = new Set([1, 2, 3]);
  const g = new EcmpGroup(
    [
      { port: 3, via: 0x0a00_0005 },
      { port: 1, via: 0x0a00_0009 },
      { port: 2, via: 0x0a00_0001 },
    ],
    (p) => up.has(p),
  );
  t.same(
    g.members.map((m) => m.port),
    [2, 3, 1],
  );
  t.same(
    g.live.map((m) => m.port),
    [2, 3, 1],
  );
  up.delete(3);
  t.same(
    g.live.map((m) => m.port),
    [2, 3, 1],
    "until refreshed",
  );
  g.refresh();
  t.same(
    g.live.map((m) => m.port),
    [2, 1],
  );
  t.notOk(g.isUp(1), "member 1 (port 3) is down");
  t.ok(g.isUp(0));
  t.end();
});

t.test("static ECMP picks hash mod live members, as the hasher says", (t) => {
  const g = new EcmpGroup(
    [0, 1, 2, 3].map((i) => ({ port: i + 1, via: 100 + i })),
    () => true,
  );
  const ecmp = new StaticEcmp(31, ALGORITHM_CRC32, 7);
  const hasher = new FlowHasher(31, ALGORITHM_CRC32, 7);
  const used = new Set<number>();
  for (let sport = 1000; sport < 1100; sport++) {
    const flow = { srcIp: 1, dstIp: 2, protocol: 17, srcPort: sport, dstPort: 4791, destQp: -1, length: 100 };
    const member = ecmp.select(flow, g, 0);
    t.equal(member, g.live[hasher.select(4, 1, 2, 17, sport, 4791)], `sport ${sport}`);
    used.add(member.port);
  }
  t.equal(used.size, 4, "all members used");
  const one = new EcmpGroup([{ port: 9, via: 1 }], () => true);
  t.equal(
    ecmp.select({ srcIp: 1, dstIp: 2, protocol: 17, srcPort: 1, dstPort: 2, destQp: -1, length: 1 }, one, 0)
      .port,
    9,
  );
  t.end();
});
