import t from "tap";
import { peerIp, REMOTE, SwitchHarness } from "./harness.js";

const DST = REMOTE + 7;

/** 10.9.0.0/16 over ports 3, 4 and 5 (peer IPs in port order), traffic in on ports 1 and 2. */
function harness(settings = {}): SwitchHarness {
  return new SwitchHarness({
    ports: 5,
    settings,
    routes: [
      {
        prefix: REMOTE,
        prefixLength: 16,
        nextHops: [5, 3, 4].map((port) => ({ port, via: peerIp(port) })),
      },
    ],
  }).start();
}

/** The egress port of each of `n` packets of one flow in on `from` (`gap` ns apart). */
function send(h: SwitchHarness, from: number, n: number, gap = 1000, sport = 0xc000): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const before = h.env.sent.length;
    h.deliver(from, h.udp(from, DST, { sport, dscp: 0 }));
    h.run(h.now + gap);
    const sent = h.env.sent.slice(before).filter((s) => s.frame.length > 60);
    out.push(sent.length === 1 ? sent[0]!.port : -1);
  }
  return out;
}

t.test("lb.mode lbn: every ingress port maps to member (port - 1) mod 3", (t) => {
  const h = harness({ lb: { mode: "lbn" } });
  t.same([...new Set(send(h, 1, 5))], [3], "port 1 (index 0) -> member 0, port 3");
  t.same([...new Set(send(h, 2, 5, 1000, 0xd000))], [4], "port 2 (index 1) -> member 1, port 4");
  t.end();
});

t.test("lb.mode dlb-spray spreads one flow over every member; `configure` back to ecmp pins it", (t) => {
  const h = harness({ lb: { mode: "dlb-spray" } });
  const sprayed = send(h, 1, 30);
  t.same([...new Set(sprayed)].sort(), [3, 4, 5], "one flow on all three members");
  t.equal(
    h.portCounter(3, "dlb_member_packets"),
    sprayed.filter((p) => p === 3).length,
    "counted per member",
  );
  const ecmp = h.config.ecmp;
  t.same(h.command({ type: "configure", tunables: { lb: { ...h.config.lb, mode: "ecmp" }, ecmp } }), {
    ok: true,
  });
  t.equal(new Set(send(h, 1, 10)).size, 1, "static ECMP again: one path");
  t.end();
});

t.test("dlb-eligibility counts flowsets created and aged", (t) => {
  const h = harness({ lb: { mode: "dlb-eligibility", dlb: { aging: 50_000 } } });
  send(h, 1, 3, 1000, 0xc001);
  send(h, 1, 3, 1000, 0xc002);
  t.equal(h.counter("dlb_flowsets_created"), 2);
  h.run(h.now + 100_000);
  send(h, 1, 1, 1000, 0xc001);
  t.equal(h.counter("dlb_flowsets_created"), 3, "an aged flowset is created again");
  t.ok(h.counter("dlb_flowsets_aged") >= 1, "and the aged one is counted");
  t.end();
});
