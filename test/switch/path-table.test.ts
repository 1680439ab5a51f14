// Path navigation's network mode on one switch: an installed entry overrides the ECMP hash; when the
// entry's next hop goes down the packet falls back to ECMP over the live members (and it is counted);
// an empty table leaves ECMP alone.
import t from "tap";
import { peerIp, REMOTE, SwitchHarness } from "./harness.js";

const DST = REMOTE + 7;

function harness(): SwitchHarness {
  return new SwitchHarness({
    ports: 4,
    routes: [
      {
        prefix: REMOTE,
        prefixLength: 16,
        nextHops: [2, 3, 4].map((port) => ({ port, via: peerIp(port) })),
      },
    ],
  }).start();
}

function outPort(h: SwitchHarness, sport: number): number {
  const before = h.env.sent.length;
  h.deliver(1, h.udp(1, DST, { sport, dscp: 0 }));
  h.run(h.now + 1000);
  const sent = h.env.sent.slice(before).filter((s) => s.frame.length > 60);
  return sent.length === 1 ? sent[0]!.port : -1;
}

t.test("an entry pins its flow; a down next hop falls back to ECMP over the live members", (t) => {
  const h = harness();
  const sport = 0xc123;
  const ecmpPort = outPort(h, sport);
  t.ok([2, 3, 4].includes(ecmpPort), `ECMP sends the flow out of port ${ecmpPort}`);
  const pinned = [2, 3, 4].find((p) => p !== ecmpPort)!;
  const reply = h.command({
    type: "path-entries",
    entries: [{ srcIp: peerIp(1), dstIp: DST, srcPort: sport, port: pinned }],
  });
  t.same(reply, { ok: true });
  t.equal(outPort(h, sport), pinned, "the entry overrides the hash");
  t.equal(h.counter("path_table_hits"), 1, "one packet forwarded by the entry");
  t.equal(h.counter("path_table_entries"), 1);

  h.sw.setLinkState(pinned, false, h.now);
  const fallback = outPort(h, sport);
  t.not(fallback, pinned, "never onto the down port");
  t.ok([2, 3, 4].includes(fallback), `ECMP over the live members took it (port ${fallback})`);
  t.equal(h.counter("path_table_fallbacks"), 1, "the fallback is counted");

  h.sw.setLinkState(pinned, true, h.now);
  h.deliver(pinned, h.arpReply(pinned)); // the peer answers the ARP request a port coming up sends
  t.equal(outPort(h, sport), pinned, "the entry applies again once its next hop is back");

  t.same(h.command({ type: "path-entries", entries: [] }), { ok: true });
  t.equal(outPort(h, sport), ecmpPort, "an empty table: ECMP again");
  t.same(h.sw.stats(h.now).detail?.pathTable, undefined, "and no path table in the stats detail");
  t.end();
});

t.test("entries naming a port the switch lacks are refused; a full table says how many did not fit", (t) => {
  const h = harness();
  const bad = h.command({ type: "path-entries", entries: [{ srcIp: 1, dstIp: 2, srcPort: 3, port: 9 }] });
  t.equal(bad.ok, false);
  const small = new SwitchHarness({ ports: 4, settings: { pathTable: { capacity: 2 } } }).start();
  const entries = [1, 2, 3].map((i) => ({ srcIp: i, dstIp: DST, srcPort: 0xc000, port: 2 }));
  const r = small.command({ type: "path-entries", entries });
  t.same(r, { ok: false, error: "1 of 3 entries did not fit the table" });
  t.equal(small.counter("path_table_overflows"), 1);
  t.equal(small.counter("path_table_entries"), 2);
  t.end();
});
