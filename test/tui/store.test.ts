// The dashboard store: fed by a lab, it derives state, bounds its histories and log, and coalesces notices.
import t from "tap";
import type { LabEvent } from "../../src/lab/lab.js";
import { DashboardStore } from "../../src/tui/store.js";
import { FakeLab } from "./fixtures/fake-lab.js";
import { incastFixture } from "./fixtures/fixtures.js";
import { tick } from "./fixtures/render.js";

t.test("snapshots from the lab become links, QPs, histories", async (t) => {
  const fx = await incastFixture();
  const lab = new FakeLab(fx.topology);
  const store = new DashboardStore(
    { lab: "fake", runtime: "live", topology: fx.topology },
    { notifyMs: 0, peerName: fx.peerName, historyLength: 3 },
  );
  const seen: number[] = [];
  store.subscribe((s) => seen.push(s.snapshot?.now ?? -1));
  const off = store.connect(lab);
  lab.pushSnapshot(fx.during[0]);
  t.equal(store.getState().history.util.size, 0, "no utilisation from one sample");
  lab.pushSnapshot(fx.during[1]);
  const s = store.getState();
  t.equal(s.links.length, 12);
  t.ok(s.qps.length >= 12);
  t.ok(s.totals!.xoffSent > 0);
  t.equal(s.history.util.get("leaf2:eth6")!.length, 1);
  t.ok(s.history.util.get("leaf2:eth6")![0]! > 0.9);
  lab.pushSnapshot(fx.during[0]);
  t.equal(store.getState().snapshot, fx.during[1], "an older snapshot is ignored");
  t.same(seen, [fx.during[0].now, fx.during[1].now]);
  // Histories stay bounded.
  let now = fx.during[1].now;
  for (let i = 0; i < 5; i++) {
    now += 10_000;
    lab.pushSnapshot({ ...fx.during[1], now, stats: shiftStats(fx.during[1].stats, now) });
  }
  t.equal(store.getState().history.util.get("leaf2:eth6")!.length, 3);
  t.equal(store.getState().history.buffer.get("leaf2")!.length, 3);
  off();
  lab.pushSnapshot({ ...fx.during[1], now: now + 1 });
  t.equal(store.getState().snapshot!.now, now, "disconnected: no more updates");
});

function shiftStats<T extends Record<string, { now: number }>>(stats: T, now: number): T {
  return Object.fromEntries(Object.entries(stats).map(([k, v]) => [k, { ...v, now }])) as T;
}

t.test("events are numbered and the log is bounded", async (t) => {
  const fx = await incastFixture();
  const lab = new FakeLab(fx.topology);
  const store = new DashboardStore(
    { lab: "fake", runtime: "live", topology: fx.topology },
    { notifyMs: 0, eventLimit: 5 },
  );
  store.connect(lab);
  const ev = (i: number): LabEvent => ({
    t: i * 1000,
    device: "leaf2",
    kind: "ecn-mark",
    port: 6,
    priority: 3,
  });
  lab.pushEvents([ev(1), ev(2), ev(3)]);
  lab.pushEvents([ev(4), ev(5), ev(6), ev(7)]);
  const s = store.getState();
  t.equal(s.eventsTotal, 7);
  t.same(
    s.events.map((l) => l.seq),
    [3, 4, 5, 6, 7],
  );
  t.equal(s.events[0]!.event.t, 3000);
  // Another device's batch with earlier events: the log stays in emulated-time order.
  lab.pushEvents([
    { ...ev(5), device: "spine1", t: 4500 },
    { ...ev(9), device: "spine1" },
  ]);
  t.same(
    store.getState().events.map((l) => `${l.event.device}@${l.event.t}`),
    ["leaf2@4000", "spine1@4500", "leaf2@5000", "leaf2@6000", "leaf2@7000", "spine1@9000"].slice(-5),
  );
  t.equal(store.getState().eventsTotal, 9);
});

t.test("notifications are coalesced; actions and presets are recorded", async (t) => {
  const fx = await incastFixture();
  const store = new DashboardStore({ lab: "fake", runtime: "live", topology: fx.topology }, { notifyMs: 20 });
  let notified = 0;
  store.subscribe(() => notified++);
  store.ingestEvents([{ t: 1, device: "h1", kind: "info", detail: "a" }]);
  store.ingestEvents([{ t: 2, device: "h1", kind: "info", detail: "b" }]);
  store.setAction({ text: "incast-1", state: "ok" });
  store.setPreset("balanced");
  store.setPaused(true);
  t.equal(notified, 0, "nothing yet");
  await tick(60);
  t.equal(notified, 1, "one notice for the burst");
  const s = store.getState();
  t.equal(s.eventsTotal, 2);
  t.same(s.lastAction, { text: "incast-1", state: "ok" });
  t.equal(s.preset, "balanced");
  t.equal(s.paused, true);
  store.ingestEvents([]);
  store.setAction({ text: "x", state: "error" });
  store.dispose();
  await tick(60);
  t.equal(notified, 1, "disposed: no more notices");
});
