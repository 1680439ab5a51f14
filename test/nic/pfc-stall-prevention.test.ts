// PFC stall prevention (mlx5 pfc-prevention-tout): a NIC that has held its partner paused without a break
// for the timeout stops sending pause frames — a storm's and its receive buffer's — counting a warning at
// 85 % of the timeout (at least 80 ms) and an error at the timeout; pausing is allowed again once nothing
// wants to pause.
import t from "tap";
import { nicSettingsSchema } from "../../src/nic/features/registry.js";
import { nicConfig } from "../../src/nic/resolve-config.js";
import { parsePfcFrame } from "../../src/wire/pfc.js";
import { connect, must, pair } from "./support/pair.js";

const MS = 1_000_000;
const MAC = { mac: 0x02_00_00_00_0a_01, ip: 1, rateBps: 100e9 };

function xoffTimes(p: ReturnType<typeof pair>, from: string): number[] {
  const out: number[] = [];
  p.sim.onFrame((at, src, _to, frame) => {
    const parsed = parsePfcFrame(frame);
    if (src.device === from && parsed.ok && parsed.value.control.kind === "pfc") out.push(at);
  });
  return out;
}

t.test("a storm is cut at the timeout: warning at 85 ms, error and silence at 100 ms (auto)", (t) => {
  const p = pair({ a: { settings: { pfcStallPrevention: { timeout: "auto" } } } });
  const xoff = xoffTimes(p, "a");
  p.sim.at(1000, (now) => must(p.a, { type: "pfc-storm", priority: 3 }, now));
  p.sim.run(84 * MS);
  let c = p.a.stats(p.sim.now).counters;
  t.equal(c.tx_pause_storm_warning_events, 0, "no warning before 85 ms");
  p.sim.run(99 * MS);
  c = p.a.stats(p.sim.now).counters;
  t.equal(c.tx_pause_storm_warning_events, 1, "warned once at 85 % of the timeout");
  t.equal(c.tx_pause_storm_error_events, 0);
  p.sim.run(110 * MS);
  c = p.a.stats(p.sim.now).counters;
  t.equal(c.tx_pause_storm_error_events, 1, "the timeout passed: pause frames stopped");
  const last = xoff[xoff.length - 1]!;
  t.ok(last <= 1000 + 100 * MS + 1000, `no XOFF after the timeout (last at ${last} ns)`);
  const b = p.b.stats(p.sim.now).ports[0]!.counters;
  t.equal(b.rx_prio3_pause_transition, 1, "B's pause ran out: it may send again");

  // The storm stopped and started again: a new stretch, pause frames allowed again.
  p.sim.at(p.sim.now, (now) => must(p.a, { type: "pfc-storm", priority: null }, now));
  const before = xoff.length;
  p.sim.at(p.sim.now + 1000, (now) => must(p.a, { type: "pfc-storm", priority: 3 }, now));
  p.sim.run(p.sim.now + 10 * MS);
  t.ok(xoff.length > before, "after the stall, a new storm sends XOFF again");
  t.end();
});

t.test("the default timeout is 8 s: a 150 ms storm goes on", (t) => {
  const p = pair();
  const xoff = xoffTimes(p, "a");
  p.sim.at(1000, (now) => must(p.a, { type: "pfc-storm", priority: 3 }, now));
  p.sim.run(150 * MS);
  t.equal(p.a.stats(p.sim.now).counters.tx_pause_storm_error_events, 0);
  t.ok(xoff[xoff.length - 1]! > 149 * MS, "still storming at 150 ms");
  t.end();
});

t.test("a receive buffer that cannot drain stops pausing at the timeout and then drops", (t) => {
  const rx = { enabled: true, hostIngestRate: 1e6, xoff: 100_000, xon: 50_000, size: 400_000 };
  // A's retransmission timer is set beyond the run: its QP must not give up (retryCnt) before B stops pausing.
  const p = pair({
    a: { settings: { transport: { rto: 1000 * MS } } },
    b: { settings: { rxBuffer: rx, pfcStallPrevention: { timeout: 80 * MS } } },
  });
  connect(p, 1);
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 64 << 20, flowId: "w" });
  p.sim.run(79 * MS);
  let b = p.b.stats(p.sim.now);
  t.equal(b.counters.rx_discards_phy, 0, "lossless while B pauses A");
  t.equal(b.counters.tx_pause_storm_warning_events, 0);
  p.sim.run(82 * MS);
  b = p.b.stats(p.sim.now);
  t.equal(b.counters.tx_pause_storm_warning_events, 1, "80 ms: the warning mark is the timeout itself");
  t.equal(b.counters.tx_pause_storm_error_events, 1, "B stopped pausing");
  t.ok(
    b.counters.rx_discards_phy! > 0,
    `then its full buffer dropped (${b.counters.rx_discards_phy} frames)`,
  );
  t.end();
});

t.test("the timeout's range is mlx5's: 80 ms to 8 s, auto or off", (t) => {
  const cfg = (timeout: string | number) =>
    nicConfig({
      name: "n",
      port: MAC,
      gatewayMac: 2,
      settings: { pfcStallPrevention: { timeout } } as never,
    });
  t.equal(cfg("auto").pfcStallPrevention.timeout, 100 * MS);
  t.equal(cfg("off").pfcStallPrevention.timeout, 0);
  t.equal(cfg(2 * 1000 * MS).pfcStallPrevention.timeout, 2000 * MS);
  t.throws(() => cfg(50 * MS), /pfcStallPrevention.timeout 50 ms is not in 80..8000 ms/);
  const parsed = nicSettingsSchema().parse({ pfcStallPrevention: { timeout: "2s" } });
  t.same(parsed.pfcStallPrevention, { timeout: 2000 * MS }, "a settings file writes a duration");
  t.notOk(nicSettingsSchema().safeParse({ pfcStallPrevention: { timeout: "soon" } }).success);
  t.end();
});
