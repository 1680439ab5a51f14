// Path navigation's network mode on one switch: an installed entry overrides the ECMP hash; when the
// entry's next hop goes down the packet falls back to ECMP over the live members (and it is counted);
// an empty table leaves ECMP alone. And the costs of the mode: a full table sends the flows that did not
// fit by ECMP (counted), entries are in force only once written (one write per installLatency), and with
// failover "refresh" a failed port's entries lose their packets until the switch has rewritten them.
import t from "tap";
import { peerIp, REMOTE, SwitchHarness } from "./harness.js";

const DST = REMOTE + 7;

/** Entries written at once and failing over in the data plane: the mode without its costs. */
const IDEAL = { installLatency: 0, failover: "fallback" } as const;

function harness(pathTable: Record<string, unknown> = IDEAL): SwitchHarness {
  return new SwitchHarness({
    ports: 4,
    settings: { pathTable },
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

t.test("entries naming a port the switch lacks are refused", (t) => {
  const h = harness();
  const bad = h.command({ type: "path-entries", entries: [{ srcIp: 1, dstIp: 2, srcPort: 3, port: 9 }] });
  t.equal(bad.ok, false);
  t.end();
});

/** Three flows from port 1's peer, each pinned to a port ECMP does not choose for it. */
function pinAway(h: SwitchHarness, sports: readonly number[]) {
  return sports.map((sport) => {
    const ecmp = outPort(h, sport);
    return { sport, ecmp, pinned: [2, 3, 4].find((p) => p !== ecmp)! };
  });
}

t.test("a full table: the flows that did not fit go by ECMP, and their packets are counted", (t) => {
  const h = harness({ ...IDEAL, capacity: 2 });
  const flows = pinAway(h, [0xc001, 0xc002, 0xc003]);
  const entries = flows.map((f) => ({ srcIp: peerIp(1), dstIp: DST, srcPort: f.sport, port: f.pinned }));
  t.same(h.command({ type: "path-entries", entries }), { ok: true }, "a full table is not an error");
  t.equal(h.counter("path_table_overflows"), 1, "one entry refused");
  t.equal(h.counter("path_table_entries"), 2);
  t.same(h.sw.stats(h.now).detail?.pathTableState, { capacity: 2, refused: 1, pending: 0 });
  t.equal(outPort(h, flows[0]!.sport), flows[0]!.pinned, "the first entry fitted and pins its flow");
  t.equal(outPort(h, flows[1]!.sport), flows[1]!.pinned);
  t.equal(h.counter("path_table_overflow_packets"), 0);
  t.equal(outPort(h, flows[2]!.sport), flows[2]!.ecmp, "the third flow is hashed as without navigation");
  t.equal(outPort(h, flows[2]!.sport), flows[2]!.ecmp);
  t.equal(h.counter("path_table_overflow_packets"), 2, "both of its packets counted as overflow");
  t.equal(h.counter("path_table_hits"), 2);
  t.end();
});

t.test("install latency: an entry is in force only once written, the writes one after another", (t) => {
  const h = harness({ installLatency: 10_000, failover: "fallback" });
  const flows = pinAway(h, [0xc001, 0xc002]);
  const t0 = h.now;
  const entries = flows.map((f) => ({ srcIp: peerIp(1), dstIp: DST, srcPort: f.sport, port: f.pinned }));
  t.same(h.command({ type: "path-entries", entries }), { ok: true });
  t.same(h.sw.stats(h.now).detail?.pathTableState?.pending, 2, "both writes pending");
  t.equal(outPort(h, flows[0]!.sport), flows[0]!.ecmp, "before its write completes: ECMP");
  t.equal(h.counter("path_table_pending"), 1);
  h.run(t0 + 10_000);
  t.equal(outPort(h, flows[0]!.sport), flows[0]!.pinned, "first entry written after 10 µs");
  t.equal(outPort(h, flows[1]!.sport), flows[1]!.ecmp, "the second waits for the first");
  h.run(t0 + 20_000);
  t.equal(outPort(h, flows[1]!.sport), flows[1]!.pinned, "second written after 20 µs");
  t.equal(h.counter("path_table_writes"), 2);

  // A re-plan that moves flow 0 and keeps flow 1: flow 0 stays on its old port until the rewrite, flow 1
  // is not rewritten at all.
  const moved = [2, 3, 4].find((p) => p !== flows[0]!.pinned && p !== flows[0]!.ecmp)!;
  const t1 = h.now;
  h.command({
    type: "path-entries",
    entries: [{ ...entries[0]!, port: moved }, entries[1]!],
  });
  t.equal(outPort(h, flows[0]!.sport), flows[0]!.pinned, "the old entry holds until the new one is written");
  t.equal(outPort(h, flows[1]!.sport), flows[1]!.pinned, "the unchanged entry stays in force");
  h.run(t1 + 10_000);
  t.equal(outPort(h, flows[0]!.sport), moved, "rewritten after one write time");
  t.equal(h.counter("path_table_writes"), 3, "only the changed entry was written");
  t.end();
});

t.test(
  "failover: refresh loses a dead port's packets until the entry is rewritten; fallback does not",
  (t) => {
    for (const failover of ["refresh", "fallback"] as const) {
      const h = harness({ installLatency: 5_000, failover });
      const [f] = pinAway(h, [0xc001]);
      h.command({
        type: "path-entries",
        entries: [{ srcIp: peerIp(1), dstIp: DST, srcPort: f!.sport, port: f!.pinned }],
      });
      h.run(h.now + 5_000);
      t.equal(outPort(h, f!.sport), f!.pinned, `${failover}: pinned once written`);
      const down = h.now;
      h.sw.setLinkState(f!.pinned, false, down);
      const early = outPort(h, f!.sport);
      if (failover === "refresh") {
        t.equal(early, -1, "refresh: the packet is lost at the dead port");
        t.equal(h.counter("path_table_blackholed"), 1);
        t.equal(h.counter("dropped_lossy"), 1, "dropped (a link failure, not a broken lossless promise)");
        h.run(down + 5_000);
        const later = outPort(h, f!.sport);
        t.ok(
          [2, 3, 4].includes(later) && later !== f!.pinned,
          "refreshed after one write time: ECMP takes it",
        );
      } else {
        t.ok([2, 3, 4].includes(early) && early !== f!.pinned, "fallback: ECMP at once");
        t.equal(h.counter("path_table_blackholed"), 0);
      }
    }
    t.end();
  },
);
