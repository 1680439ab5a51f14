// `rocelab events`: a snapshot line first, then one JSON line per event, each with its class.
import t from "tap";
import { eventClass, jsonLines, streamEvents } from "../../src/lab/event-stream.js";
import { SimLab } from "../../src/lab/sim/sim-lab.js";
import { defaultTopology } from "../../src/scenario/topology.js";

t.test("snapshot first, then classified events as JSON lines", async (t) => {
  const lab = new SimLab({ topology: defaultTopology(), seed: 3 });
  const lines: string[] = [];
  let subscribed = false;
  const stop = await streamEvents(
    lab,
    jsonLines((l) => lines.push(l)),
    () => t.fail("the lab did not go away"),
    async () => {
      subscribed = true;
    },
  );
  t.ok(subscribed, "the event push was started");
  await lab.apply({ kind: "incast", to: "h5", from: 4, bytes: 2_000_000 });
  lab.step(600_000);
  (lab as unknown as { publish(): void }).publish();
  await lab.apply({ kind: "link", node: "leaf1", port: 1, up: false });
  lab.step(10_000);
  (lab as unknown as { publish(): void }).publish();
  stop();
  const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  t.equal(objects[0]!.type, "snapshot");
  t.equal(objects[0]!.lab, lab.name);
  t.ok(Array.isArray(objects[0]!.devices) && (objects[0]!.devices as unknown[]).length === 12);
  t.ok(
    objects.slice(1).every((o) => o.type === "event"),
    "every later line is an event",
  );
  const classes = new Set(objects.slice(1).map((o) => o.class));
  for (const c of ["mark", "congestion", "failure"]) t.ok(classes.has(c), `a ${c} event (${[...classes]})`);
  const n = lines.length;
  lab.step(100_000);
  (lab as unknown as { publish(): void }).publish();
  t.equal(lines.length, n, "nothing is written after stop");
  await lab.close();
});

t.test("event classes", async (t) => {
  const e = (kind: string, detail?: string) =>
    eventClass({ t: 0, device: "x", kind, ...(detail ? { detail } : {}) } as never);
  t.equal(e("pfc-xoff"), "pause");
  t.equal(e("paused-off"), "pause");
  t.equal(e("drop"), "drop");
  t.equal(e("link-down"), "failure");
  t.equal(e("info", "process crashed (exit code 1, signal none)"), "failure");
  t.equal(e("info", "settings changed: {}"), "config");
  t.equal(e("info", "hello"), "info");
});
