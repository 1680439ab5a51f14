import t from "tap";
import { CounterKind, CounterSet, Label, statsKey } from "../../src/device/counters.js";
import { DropCounter } from "../../src/device/drops.js";
import { EventLimiter } from "../../src/device/event-limiter.js";
import { TimerRegistry } from "../../src/device/timers.js";

const sizes = { [Label.Port]: 3, [Label.Priority]: 8, [Label.Reason]: 2 };

t.test("counters are declared once, indexed by their labels, cleared; gauges are not", (t) => {
  const set = new CounterSet(sizes);
  const pause = set.add({
    name: "tx_pause",
    key: "tx_pause_prio{priority}",
    kind: CounterKind.Counter,
    unit: "frames",
    help: "",
    labels: [Label.Port, Label.Priority],
  });
  let level = 5;
  set.computed({ name: "depth", kind: CounterKind.Gauge, unit: "bytes", help: "", labels: [] }, () => level);
  pause[2 * 8 + 3]!++;
  t.equal(set.value("tx_pause", 0, 2, 3), 1);
  t.equal(set.value("depth", 0), 5);
  t.equal(pause.length, 24);
  set.clear();
  t.equal(set.value("tx_pause", 0, 2, 3), 0, "counter cleared");
  level = 7;
  t.equal(set.value("depth", 0), 7, "gauge read live, never cleared");
  const samples = [...set.samples(0)];
  t.equal(samples.length, 25);
  t.same(samples[19]!.labels, [2, 3]);
  t.equal(statsKey(samples[19]!.def, samples[19]!.labels), "tx_pause_prio3");
  t.end();
});

t.test("names must be legal Prometheus metric names and unique", (t) => {
  const set = new CounterSet(sizes);
  const def = { kind: CounterKind.Counter, unit: "packets", help: "", labels: [] };
  t.throws(() => set.add({ ...def, name: "drop_unknown-qp" }), /not a legal metric name/);
  set.add({ ...def, name: "ok_name" });
  t.throws(() => set.add({ ...def, name: "ok_name" }), /declared twice/);
  t.throws(() => set.add({ ...def, name: "q", labels: [Label.Qp] }), /no size for label qp/);
  t.end();
});

t.test("drops: one counter per reason, one rate-limited event per (port, reason)", (t) => {
  const set = new CounterSet(sizes);
  const events: unknown[] = [];
  const env = { emit: (e: unknown) => events.push(e) } as never;
  const drops = new DropCounter(["wred", "no_route"] as const, set, new EventLimiter(1000), env, 3);
  drops.count("wred", 1, 3, 0);
  drops.count("wred", 1, 3, 10);
  drops.count("no_route", 2, -1, 20);
  drops.count("wred", 1, 3, 2000);
  t.equal(drops.get("wred"), 3);
  t.equal(set.value("drop", 0, 1), 1);
  t.same(events, [
    { kind: "drop", port: 1, priority: 3, count: 1, detail: "wred" },
    { kind: "drop", port: 2, count: 1, detail: "no_route" },
    { kind: "drop", port: 1, priority: 3, count: 2, detail: "wred" },
  ]);
  t.equal(statsKey(set.find("drop")!.def, [1], ["wred", "no_route"]), "drop_no_route");
  t.end();
});

t.test("timers: a kind per handler, the index comes back", (t) => {
  const timers = new TimerRegistry();
  const fired: string[] = [];
  const a = timers.register("a", (i, now) => fired.push(`a${i}@${now}`));
  const b = timers.register("b", (i, now) => fired.push(`b${i}@${now}`));
  timers.fire(b.id(42), 5);
  timers.fire(a.id(0), 6);
  t.same(fired, ["b42@5", "a0@6"]);
  t.not(a.id(1), b.id(1));
  t.throws(() => timers.register("a", () => {}), /twice/);
  t.end();
});

t.test("limiter key spaces do not overlap", (t) => {
  const l = new EventLimiter(100);
  const x = l.keys(10);
  const y = l.keys(5);
  t.equal(y, x + 10);
  t.equal(l.admit(x + 9, 0), 1);
  t.equal(l.admit(y, 0), 1, "a different key");
  t.end();
});
