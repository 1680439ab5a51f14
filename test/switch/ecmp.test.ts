import t from "tap";
import { ALGORITHM_CRC16, ALGORITHM_CRC32, FlowHasher } from "../../src/lb/ecmp-hash.js";
import { IpProtocol } from "../../src/wire/ipv4.js";
import { peerIp, REMOTE, SwitchHarness } from "./harness.js";

const ALL_FIELDS = 31;
const DST = REMOTE + 7;

/** 10.9.0.0/16 over ports 2, 3 and 4, listed out of order: the group orders them by the peer's IP. */
function harness(settings = {}): SwitchHarness {
  return new SwitchHarness({
    ports: 4,
    settings,
    routes: [
      {
        prefix: REMOTE,
        prefixLength: 16,
        nextHops: [
          { port: 4, via: peerIp(4) },
          { port: 2, via: peerIp(2) },
          { port: 3, via: peerIp(3) },
        ],
      },
    ],
  }).start();
}

/** Sends one packet per source port and returns the port each left on. */
function spray(h: SwitchHarness, sports: number[]): number[] {
  const out: number[] = [];
  for (const sport of sports) {
    const before = h.env.sent.length;
    h.deliver(1, h.udp(1, DST, { sport, dscp: 0 }));
    h.run(h.now + 1000);
    const sent = h.env.sent.slice(before).filter((s) => s.frame.length > 60);
    out.push(sent.length === 1 ? sent[0]!.port : -1);
  }
  return out;
}

const sports = Array.from({ length: 64 }, (_, i) => 0xc000 + i * 37);

t.test("each flow takes the member its 5-tuple hash picks, members ordered by peer IP", (t) => {
  const h = harness();
  const hasher = new FlowHasher(ALL_FIELDS, ALGORITHM_CRC32, 0x5eed);
  const members = [2, 3, 4];
  const want = sports.map((sport) => members[hasher.select(3, peerIp(1), DST, IpProtocol.UDP, sport, 4791)]!);
  t.same(spray(h, sports), want, "every flow on its hashed member");
  t.equal(new Set(want).size, 3, "and the flows use all three members");
  t.same(spray(h, [sports[5]!, sports[5]!, sports[5]!]), [want[5], want[5], want[5]], "one flow, one path");
  t.end();
});

t.test("a member whose port goes down leaves the group; the rest share its flows", (t) => {
  const h = harness();
  h.sw.setLinkState(3, false, h.now);
  const hasher = new FlowHasher(ALL_FIELDS, ALGORITHM_CRC32, 0x5eed);
  const want = sports.map((sport) => [2, 4][hasher.select(2, peerIp(1), DST, IpProtocol.UDP, sport, 4791)]!);
  t.same(spray(h, sports), want);
  h.sw.setLinkState(3, true, h.now);
  h.deliver(3, h.arpReply(3));
  t.ok(spray(h, sports).includes(3), "back in the group once up");
  t.end();
});

t.test("hash fields, algorithm and seed come from the ecmp section", (t) => {
  const dstOnly = harness({ ecmp: { fields: ["dstIp"] } });
  t.equal(new Set(spray(dstOnly, sports)).size, 1, "destination-only hashing puts every flow on one member");
  const crc16 = harness({ ecmp: { algorithm: "crc16", seed: 42 } });
  const hasher = new FlowHasher(ALL_FIELDS, ALGORITHM_CRC16, 42);
  t.same(
    spray(crc16, sports),
    sports.map((sport) => [2, 3, 4][hasher.select(3, peerIp(1), DST, IpProtocol.UDP, sport, 4791)]!),
  );
  t.end();
});
