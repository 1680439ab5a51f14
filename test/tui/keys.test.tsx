// Keys through the whole dashboard against the fake lab: each action calls the lab with the right
// arguments and reports the outcome on the status line; navigation, help, quitting, simulation pacing.
import t from "tap";
import { switchChange } from "../../src/scenario/settings-layers.js";
import type { SimPacing } from "../../src/tui/run-effect.js";
import { dashboard, plainLines } from "./fixtures/dashboard.js";
import { KEY } from "./fixtures/render.js";

const text = (frame: string) => plainLines(frame).join("\n");
const statusLine = (frame: string) => plainLines(frame).at(-1) ?? "";

t.test("i: incast with the defaults, after its prompt", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30 });
  await d.ui.type("i");
  const prompt = text(d.ui.screen());
  t.match(prompt, /Incast: N senders write into one host/);
  t.match(prompt, /> receiver\s+\[h8_\s*\]/, "into the last host");
  t.match(prompt, /senders\s+\[4\s*\]/);
  t.match(prompt, /bytes each\s+\[4MB\s*\]/);
  t.equal(d.lab.calls.length, 0, "nothing happens before Enter");
  await d.ui.type(KEY.enter);
  t.same(d.lab.calls, [{ kind: "incast", to: "h8", from: 4, bytes: 4_000_000 }]);
  t.match(statusLine(d.ui.screen()), /ok: incast-1: 4 senders x 4MB -> h8/);
  t.notMatch(text(d.ui.screen()), /Incast:/, "the prompt is gone");
  d.ui.unmount();
});

t.test("at 80 columns the outcome of an action is never cut off", async (t) => {
  const d = await dashboard({ columns: 80, rows: 24 });
  await d.ui.type("i", KEY.enter);
  const line = statusLine(d.ui.screen());
  t.match(line, /ok: incast-1: 4 senders x 4MB -> h8$/, "the whole outcome");
  t.notMatch(line, / x\d+ | default /, "no cryptic x10000 or bare preset name");
  d.ui.unmount();
});

t.test("i: edited fields, a wrong value, Esc", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30 });
  await d.ui.type("i", KEY.backspace, KEY.backspace, "h", "5", KEY.tab, KEY.backspace, "9", KEY.enter);
  t.match(text(d.ui.screen()), /ERROR: senders must be 1-7/, "validated in the prompt");
  t.equal(d.lab.calls.length, 0);
  await d.ui.type(KEY.backspace, "2", KEY.tab, KEY.backspace, KEY.backspace, KEY.backspace, "1MB", KEY.enter);
  t.same(d.lab.calls, [{ kind: "incast", to: "h5", from: 2, bytes: 1_000_000 }]);
  await d.ui.type("i", KEY.escape);
  t.notMatch(text(d.ui.screen()), /Incast:/, "Esc cancels");
  t.equal(d.lab.calls.length, 1);
  d.ui.unmount();
});

t.test("s, l, k, r, t, u call the lab", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30 });
  await d.ui.type("s");
  t.same(d.lab.calls.at(-1), { kind: "stop", workloads: "all" });
  t.match(statusLine(d.ui.screen()), /ok: traffic stopped/);

  await d.ui.type("l");
  t.match(text(d.ui.screen()), /Link down \/ up/);
  t.match(text(d.ui.screen()), /> leaf1:eth1 ↔ spine1:eth1\s+up \(Enter: take it DOWN\)/);
  await d.ui.type(KEY.down, KEY.down, KEY.enter);
  t.same(d.lab.calls.at(-1), { kind: "link", node: "leaf2", port: 1, up: false }, "the third link goes down");
  t.match(statusLine(d.ui.screen()), /ok: leaf2:eth1 DOWN/);

  // The node view opens on the busiest node: in the fixture leaf1, 324KB queued (262KB towards spine2,
  // held by the spines' XOFF) against leaf2's 204KB towards h8, and 5 pauses to leaf2's 4; one to the left.
  await d.ui.type("2", "p", "k");
  t.match(text(d.ui.screen()), /Kill a node/);
  t.match(text(d.ui.screen()), /> spine2\s+switch\s+running/, "the node on screen is offered");
  await d.ui.type(KEY.enter);
  t.same(d.lab.calls.at(-1), { kind: "device", node: "spine2", running: false });
  t.match(statusLine(d.ui.screen()), /ok: spine2 killed/);

  await d.ui.type("r", KEY.enter);
  t.same(d.lab.calls.at(-1), { kind: "device", node: "spine2", running: true });

  await d.ui.type("t");
  t.match(text(d.ui.screen()), /> default\s+ECN 150KB\/1500KB.*\(in use\)/, "t opens on the preset in use");
  t.match(text(d.ui.screen()), /presets: default, aggressive, balanced, conservative/);
  await d.ui.type(KEY.down, KEY.enter);
  t.same(d.lab.calls.at(-1), { kind: "set", change: switchChange({ profile: "aggressive" }) });
  t.match(statusLine(d.ui.screen()), /ok: preset aggressive on every switch/);
  await d.ui.type("t");
  t.match(text(d.ui.screen()), /> aggressive\s+ECN 50KB\/200KB.*\(in use\)/, "now on aggressive, in use");
  await d.ui.type(KEY.down, KEY.enter);
  t.same(
    d.lab.calls.at(-1),
    { kind: "set", change: switchChange({ profile: "balanced" }) },
    "one down is the next",
  );

  await d.ui.type("u");
  t.match(text(d.ui.screen()), /Background UDP/);
  await d.ui.type(KEY.tab, KEY.tab, KEY.backspace, KEY.backspace, KEY.backspace, "40G", KEY.enter);
  t.same(d.lab.calls.at(-1), { kind: "udp", from: "h1", to: "h8", rateBps: 40e9 });
  t.match(statusLine(d.ui.screen()), /ok: UDP h1 -> h8 at 40Gb\/s/);
  d.ui.unmount();
});

t.test("x: a PFC storm from a host's NIC, and off stops it", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30 });
  await d.ui.type("x");
  const prompt = text(d.ui.screen());
  t.match(prompt, /PFC storm: the host's NIC sends XOFF for ever/);
  t.match(prompt, /> host\s+\[h8_\s*\]/, "the last host");
  t.match(prompt, /priority\s+\[3\s*\]/);
  await d.ui.type(KEY.enter);
  t.same(d.lab.calls.at(-1), { kind: "pfc-storm", host: "h8", priority: 3 });
  t.match(statusLine(d.ui.screen()), /ok: h8: PFC storm on priority 3/);
  await d.ui.type("x", KEY.tab, KEY.backspace, "off", KEY.enter);
  t.same(d.lab.calls.at(-1), { kind: "pfc-storm", host: "h8", priority: null });
  t.match(statusLine(d.ui.screen()), /ok: h8: PFC storm stopped/);
  d.ui.unmount();
});

t.test("a lab error is shown, never thrown", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30 });
  d.lab.failures.set("device", "spine1 is killed");
  await d.ui.type("k", KEY.enter);
  t.match(statusLine(d.ui.screen()), /ERROR: spine1 is killed/);
  d.lab.failures.set("incast", 'the lab did not answer "incast" within 60 s');
  await d.ui.type("i", KEY.enter);
  t.match(statusLine(d.ui.screen()), /ERROR: the lab did not answer/);
  await d.ui.type("2");
  t.match(text(d.ui.screen()), /\[2 Node\]/, "and the dashboard goes on");
  d.ui.unmount();
});

t.test("tabs, node selection, help, quit", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30 });
  await d.ui.type("2");
  // leaf1 holds the most bytes (324KB against leaf2's 204KB): see "s, l, k, r, t, u call the lab".
  t.match(text(d.ui.screen()), /◀ leaf1 ▶/, "the node view opens on the busiest node");
  await d.ui.type(KEY.right, "p");
  t.match(text(d.ui.screen()), /◀ leaf1 ▶/);
  await d.ui.type(KEY.down);
  t.match(text(d.ui.screen()), />eth2\s+spine2:eth1/, "↓ picks a port");
  t.match(text(d.ui.screen()), /eth2 → spine2:eth1/, "and shows its queues");
  await d.ui.type("p", KEY.left);
  t.match(text(d.ui.screen()), /◀ spine1 ▶/);
  await d.ui.type("3");
  t.match(text(d.ui.screen()), /\[3 Flows\]/);
  await d.ui.type("4");
  t.match(text(d.ui.screen()), /\[4 Events\]/);
  await d.ui.type(KEY.tab);
  t.match(text(d.ui.screen()), /\[1 Fabric\]/, "Tab cycles");
  await d.ui.type(KEY.shiftTab);
  t.match(text(d.ui.screen()), /\[4 Events\]/, "Shift-Tab cycles back");
  await d.ui.type(KEY.up);
  t.match(text(d.ui.screen()), /scrolled: 1 up \(End follows\)/, "more events than rows: ↑ scrolls");
  await d.ui.type(KEY.end);
  t.match(text(d.ui.screen()), /following new events/);
  await d.ui.type("f");
  t.match(text(d.ui.screen()), /filter pfc/);
  t.notMatch(text(d.ui.screen()), /rate-cut|cnp-sent/, "only PFC events");
  await d.ui.type("?");
  t.match(text(d.ui.screen()), /rocelab testbed: keys/);
  await d.ui.type("i");
  t.notMatch(text(d.ui.screen()), /Incast:/, "action keys do nothing under the help");
  await d.ui.type(KEY.escape);
  t.notMatch(text(d.ui.screen()), /rocelab testbed: keys/);
  t.equal(d.quits(), 0);
  await d.ui.type("q");
  t.equal(d.quits(), 1, "q quits");
  await d.ui.type("i", KEY.ctrlC);
  t.equal(d.quits(), 2, "Ctrl-C quits, even from a prompt");
  t.equal(d.lab.calls.length, 0, "none of this touched the lab");
  d.ui.unmount();
});

t.test("keys arriving together are taken one by one", async (t) => {
  const d = await dashboard({ columns: 100, rows: 30 });
  await d.ui.type("2nnn");
  t.match(text(d.ui.screen()), /◀ h2 ▶/, "three steps on from leaf1, the busiest node");
  // What tmux sends for `send-keys i BSpace BSpace h 5 Tab BSpace 6 Enter`: one chunk.
  await d.ui.type("i\u007f\u007fh5\t\u007f6\r");
  t.same(d.lab.calls, [{ kind: "incast", to: "h5", from: 6, bytes: 4_000_000 }]);
  d.ui.unmount();
});

t.test("simulation: pause, faster, slower; a live lab says no", async (t) => {
  let dilation = 10_000;
  let paused = false;
  const pacing: SimPacing = {
    dilation: () => dilation,
    paused: () => paused,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    setDilation: (d) => {
      dilation = d;
    },
  };
  const d = await dashboard({ columns: 100, rows: 30, runtime: "sim", pacing });
  await d.ui.type(" ");
  t.equal(paused, true);
  t.match(statusLine(d.ui.screen()), /sim\s+sim-default.*PAUSED.*ok: paused \(space resumes\)/);
  await d.ui.type(" ");
  t.equal(paused, false);
  await d.ui.type("+");
  t.equal(dilation, 5000, "+ halves the dilation");
  t.match(statusLine(d.ui.screen()), /ok: dilation 5000: 1 emulated ms lasts 5\.0 real s/);
  await d.ui.type("-", "-");
  t.equal(dilation, 20_000);
  for (let i = 0; i < 12; i++) await d.ui.type("+");
  t.equal(dilation, 100, "bounded");
  d.ui.unmount();

  const live = await dashboard({ columns: 100, rows: 30 });
  await live.ui.type(" ");
  t.match(statusLine(live.ui.screen()), /ERROR: a live lab cannot pause/);
  await live.ui.type("+");
  t.match(statusLine(live.ui.screen()), /ERROR: a live lab's dilation is fixed/);
  live.ui.unmount();
});
