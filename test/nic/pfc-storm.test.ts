// A NIC turned into a broken one: `pfc-storm` sends XOFF for one priority with the longest pause time now
// and again every half pause time, whatever its buffers say, until told to stop; its partner stays paused.
import t from "tap";
import { parsePfcFrame, quantaToNs } from "../../src/wire/pfc.js";
import { pair, RATE } from "./support/pair.js";

t.test("pfc-storm sends a full-length XOFF every half pause time until stopped", (t) => {
  const p = pair();
  const xoff: { t: number; quanta: number | undefined; vector: number }[] = [];
  p.sim.onFrame((at, from, _to, frame) => {
    const parsed = parsePfcFrame(frame);
    if (from.device !== "a" || !parsed.ok || parsed.value.control.kind !== "pfc") return;
    xoff.push({ t: at, quanta: parsed.value.control.quanta[3], vector: parsed.value.control.enableVector });
  });
  t.same(p.a.command({ type: "pfc-storm", priority: 9 }, 0), { ok: false, error: "priority 9 is not 0..7" });
  const half = Math.floor(quantaToNs(0xffff, RATE) / 2);
  p.sim.at(1000, (now) => t.same(p.a.command({ type: "pfc-storm", priority: 3 }, now), { ok: true }));
  p.sim.run(1000 + 10 * half + 100);
  t.equal(xoff.length, 11, "one XOFF at once, then one every half pause time");
  t.ok(
    xoff.every((x) => x.vector === 1 << 3 && x.quanta === 0xffff),
    "priority 3 only, 0xffff quanta",
  );
  t.equal(p.a.stats(p.sim.now).ports[0]!.counters.tx_prio3_pause, 11, "counted as pause frames sent");
  const b = p.b.stats(p.sim.now).ports[0]!.counters;
  t.equal(b.rx_prio3_pause_transition, 0, "B's pause never ended");
  t.ok(b.rx_prio3_pause_duration! > 10 * half - 2000, `B paused since the first XOFF arrived`);
  p.sim.at(p.sim.now, (now) => t.same(p.a.command({ type: "pfc-storm", priority: null }, now), { ok: true }));
  p.sim.run(p.sim.now + 10 * half);
  t.equal(xoff.length, 11, "stopped");
  t.end();
});
