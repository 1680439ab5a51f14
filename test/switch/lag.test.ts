// Link aggregation on one switch (features/lag.ts): the test plays the partner switch on ports 1-2 of a
// group with real LACPDUs, and checks what IEEE 802.1AX asks — a member carries traffic only once both
// ends are collecting and distributing, a member whose partner falls silent for 3 × the fast period is
// removed and comes back with the next LACPDU, a member cabled to another system stays out — and that a
// static group uses every member whose link is up, hashing flows over them.

import t from "tap";
import type { LagConfig } from "../../src/switch/config.js";
import { ethType } from "../../src/wire/ethernet.js";
import { buildLacpFrame, type LacpPortInfo, LacpState, parseLacpdu } from "../../src/wire/lacp.js";
import { peerIp, peerMac, REMOTE, SwitchHarness } from "./harness.js";

const S = 1e9;

function harness(
  mode: "static" | "lacp",
  hash: LagConfig["hash"] = ["srcIp", "dstIp", "protocol", "srcPort", "dstPort"],
): SwitchHarness {
  const lag: LagConfig = {
    name: "po1",
    key: 1,
    mode,
    rate: "fast",
    hash,
    balance: "hash",
    members: [
      { port: 1, via: peerIp(1) },
      { port: 2, via: peerIp(2) },
    ],
  };
  const h = new SwitchHarness({
    ports: 3,
    lags: [lag],
    routes: [{ prefix: REMOTE, prefixLength: 16, nextHops: [{ port: 1, via: peerIp(1) }] }],
  });
  // Every LACPDU the switch sends, kept apart from `sent` (which the helpers clear).
  const log: { port: number; frame: Uint8Array }[] = [];
  pdus.set(h, log);
  const transmit = h.env.transmit.bind(h.env);
  h.env.transmit = (port, frame) => {
    if (ethType(frame) === 0x8809) log.push({ port, frame });
    transmit(port, frame);
  };
  return h.start();
}

const pdus = new WeakMap<SwitchHarness, { port: number; frame: Uint8Array }[]>();

/** The switch's latest LACPDU on `port`, parsed. */
function lastPdu(h: SwitchHarness, port: number) {
  const sent = pdus.get(h)!.filter((s) => s.port === port);
  const r = parseLacpdu(sent.at(-1)!.frame, 14);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** A frame arrives on `port`; the switch's answers go out (10 µs). */
function give(h: SwitchHarness, port: number, frame: Uint8Array): void {
  h.deliver(port, frame);
  h.run(h.now + 10_000);
}

const ALL = LacpState.Activity | LacpState.Timeout | LacpState.Aggregation;
const IN_SYNC = ALL | LacpState.Synchronization | LacpState.Collecting | LacpState.Distributing;

/** The partner's LACPDU on `port`: it echoes what the switch last said, and is in sync. */
function partnerPdu(h: SwitchHarness, port: number, system = 0x0200_00ff_0000, state = IN_SYNC) {
  const me = lastPdu(h, port).actor;
  const actor: LacpPortInfo = { systemPriority: 32768, system, key: 5, portPriority: 32768, port, state };
  return buildLacpFrame({ actor, partner: me, collectorMaxDelay: 0, src: peerMac(port) });
}

/** Sends 64 flows to the remote prefix; returns how many frames left on ports 1 and 2. */
function spread(h: SwitchHarness): [number, number] {
  h.env.sent.length = 0;
  for (let f = 0; f < 64; f++) h.deliver(3, h.udp(3, REMOTE + 7, { sport: 0xc000 + f }));
  h.run(h.now + 100_000);
  return [h.data(1).length, h.data(2).length];
}

t.test("a static group hashes flows over every member whose link is up", async (t) => {
  const h = harness("static");
  const [a, b] = spread(h);
  t.equal(a + b, 64, "every packet leaves on a member");
  t.ok(a > 10 && b > 10, `both members carry flows (${a} / ${b})`);
  t.equal(h.portCounter(1, "lag_member_frames") + h.portCounter(2, "lag_member_frames"), 64);
  h.sw.setLinkState(2, false, h.now);
  const [a2, b2] = spread(h);
  t.same([a2, b2], [64, 0], "with member 2 down, member 1 carries everything");
  t.equal(h.portCounter(2, "lag_member_active"), 0);
  h.sw.setLinkState(2, true, h.now);
  h.deliver(2, h.arpReply(2));
  const [, b3] = spread(h);
  t.ok(b3 > 10, "member 2 is back after its link recovers");
});

t.test("a runtime set of ecmp.fields reaches a group that inherits them, not one with its own", async (t) => {
  const inherits = harness("static", null);
  t.equal(
    inherits.config.ecmp.fields.includes("srcPort"),
    true,
    "the default fields hash the UDP source port",
  );
  const [a, b] = spread(inherits);
  t.ok(a > 10 && b > 10, `the 64 source ports spread over both members (${a} / ${b})`);
  const ecmp = { ...inherits.config.ecmp, fields: ["srcIp", "dstIp"] as const };
  t.same(inherits.command({ type: "configure", tunables: { ecmp } }), { ok: true });
  const [a2, b2] = spread(inherits);
  t.ok(a2 === 64 || b2 === 64, `hashing addresses only, one flow's worth: one member (${a2} / ${b2})`);
  t.same(
    inherits.sw.stats(inherits.now).detail?.lag?.[0]?.hash,
    ["srcIp", "dstIp"],
    "the group's stats show the fields in force",
  );

  const own = harness("static");
  t.same(own.command({ type: "configure", tunables: { ecmp } }), { ok: true });
  const [a3, b3] = spread(own);
  t.ok(a3 > 10 && b3 > 10, `a group with its own hash keeps it (${a3} / ${b3})`);
});

t.test("LACP: members carry traffic only when both ends collect and distribute", async (t) => {
  const h = harness("lacp");
  const first = lastPdu(h, 1).actor;
  t.equal(first.key, 1, "the operational key is the group's");
  t.ok(first.state & LacpState.Defaulted, "no partner yet: defaulted");
  t.notOk(first.state & LacpState.Synchronization);
  t.same(spread(h), [0, 0], "no member is active before LACP agrees: nothing is sent");
  t.equal(h.counter("drop_no_route"), 64, "the group is down as a next hop");
  // The partner appears, not yet in sync: the switch attaches (Synchronization) but does not collect.
  give(h, 1, partnerPdu(h, 1, 0x0200_00ff_0000, ALL));
  t.ok(lastPdu(h, 1).actor.state & LacpState.Synchronization, "selected and attached");
  t.notOk(lastPdu(h, 1).actor.state & LacpState.Collecting);
  t.equal(h.portCounter(1, "lag_member_selected"), 1);
  t.equal(h.portCounter(1, "lag_member_active"), 0);
  // In sync on both members: collecting and distributing; traffic flows over both.
  for (const p of [1, 2]) give(h, p, partnerPdu(h, p));
  for (const p of [1, 2]) give(h, p, partnerPdu(h, p));
  const state = lastPdu(h, 2).actor.state;
  t.equal(
    state & (LacpState.Collecting | LacpState.Distributing),
    LacpState.Collecting | LacpState.Distributing,
  );
  const [a, b] = spread(h);
  t.ok(a > 10 && b > 10, `both members carry flows (${a} / ${b})`);
  t.ok(h.portCounter(1, "lacp_rx_pdus") >= 3);
  t.ok(h.portCounter(1, "lacp_tx_pdus") >= 2);
});

t.test(
  "LACP: a silent partner times out after 3 s (fast rate) and the member returns on its next PDU",
  async (t) => {
    const h = harness("lacp");
    for (let i = 0; i < 2; i++) for (const p of [1, 2]) give(h, p, partnerPdu(h, p));
    t.equal(h.portCounter(2, "lag_member_active"), 1);
    // The partner keeps talking on port 1 every second, and falls silent on port 2.
    const t0 = h.now;
    for (let s = 1; s <= 2; s++) {
      h.run(t0 + s * S);
      give(h, 1, partnerPdu(h, 1));
    }
    t.equal(h.portCounter(2, "lag_member_active"), 1, "still a member 2 s after its last LACPDU");
    for (let s = 3; s <= 4; s++) {
      h.run(t0 + s * S);
      give(h, 1, partnerPdu(h, 1));
    }
    t.equal(h.portCounter(2, "lacp_timeouts"), 1, "timed out after 3 × 1 s");
    t.equal(h.portCounter(2, "lag_member_active"), 0, "removed from the group");
    t.same(spread(h)[1], 0, "member 2 carries nothing");
    t.ok(lastPdu(h, 2).actor.state & LacpState.Defaulted, "it says so in its LACPDU");
    // Periodic transmission goes on at the fast rate while the link is up.
    const onPort2 = () => pdus.get(h)!.filter((s) => s.port === 2).length;
    const sentSince = onPort2();
    h.run(h.now + 3 * S + 1);
    t.ok(onPort2() - sentSince >= 3, "LACPDUs go on every second");
    for (let i = 0; i < 2; i++) give(h, 2, partnerPdu(h, 2));
    give(h, 1, partnerPdu(h, 1));
    t.equal(h.portCounter(2, "lag_member_active"), 1, "back with the partner's next LACPDUs");
    t.ok(spread(h)[1] > 10, "and carries flows again");
    t.equal(h.portCounter(2, "lag_member_changes"), 3, "joined, left, joined");
  },
);

t.test("LACP: a member whose partner is another system stays unselected", async (t) => {
  const h = harness("lacp");
  for (let i = 0; i < 2; i++) {
    give(h, 1, partnerPdu(h, 1));
    give(h, 2, partnerPdu(h, 2, 0x0200_00ee_0000));
  }
  t.equal(h.portCounter(1, "lag_member_selected"), 1);
  t.equal(h.portCounter(2, "lag_member_selected"), 0, "cabled to another switch: not aggregated");
  t.same(spread(h), [64, 0]);
  const detail = h.sw.stats(h.now).detail?.lag?.[0];
  t.equal(detail?.name, "po1");
  t.same(
    detail?.members.map((m) => [m.name, m.active, m.mux]),
    [
      ["eth1", true, "collecting-distributing"],
      ["eth2", false, "detached"],
    ],
  );
});
