// The key reducer: every key's next state and effect, without a terminal.
import t from "tap";
import { switchChange } from "../../src/scenario/settings-layers.js";
import type { KeyContext, KeyPress } from "../../src/tui/key-context.js";
import { INITIAL_UI, reduceKey, splitKeys, type UiState } from "../../src/tui/ui-state.js";

const CTX: KeyContext = {
  nodes: [
    { name: "spine1", kind: "switch", status: "running" },
    { name: "leaf1", kind: "switch", status: "killed" },
    { name: "h1", kind: "host", status: "running" },
    { name: "h2", kind: "host", status: "running" },
    { name: "h3", kind: "host", status: "running" },
  ],
  links: [
    { a: "leaf1:eth1", b: "spine1:eth1", up: true },
    { a: "h1:eth1", b: "leaf1:eth3", up: false },
  ],
  preset: "default",
  sim: false,
  rows: 30,
  page: 10,
  eventsTotal: 100,
};

const k = (input: string, key: KeyPress["key"] = {}): KeyPress => ({ input, key });

/** Applies keys in turn; returns the last state and every effect. */
function keys(presses: KeyPress[], ui: UiState = INITIAL_UI, ctx: KeyContext = CTX) {
  const effects = [];
  for (const p of presses) {
    const r = reduceKey(ui, p, ctx);
    ui = r.ui;
    if (r.effect) effects.push(r.effect);
  }
  return { ui, effects };
}

t.test("views, help and quit", async (t) => {
  t.equal(keys([k("2")]).ui.tab, "node");
  t.equal(keys([k("4")]).ui.tab, "events");
  t.equal(keys([k("", { tab: true })]).ui.tab, "node");
  t.equal(keys([k("", { tab: true, shift: true })]).ui.tab, "events");
  t.equal(keys([k("?")]).ui.help, true);
  t.equal(keys([k("?"), k("2")]).ui.tab, "fabric", "keys other than closing are ignored under help");
  t.equal(keys([k("?"), k("", { escape: true })]).ui.help, false);
  t.equal(keys([k("?"), k("q")]).effects.length, 0, "q closes the help first");
  t.same(keys([k("q")]).effects, [{ type: "quit" }]);
  t.same(keys([k("i"), k("c", { ctrl: true })]).effects, [{ type: "quit" }], "Ctrl-C quits from anywhere");
});

t.test("incast form: defaults, editing, validation", async (t) => {
  const open = keys([k("i")]).ui;
  t.equal(open.prompt?.kind, "incast");
  t.same(
    keys([k("i"), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "incast", to: "h3", from: 2, bytes: 4_000_000 } }],
    "into the last host from the others (at most 4), 4 MB each",
  );
  const edited = keys([
    k("i"),
    k("", { backspace: true }),
    k("1"),
    k("", { tab: true }),
    k("", { backspace: true }),
    k("1"),
    k("", { tab: true }),
    k("u", { ctrl: true }),
    k("512KB"),
    k("", { return: true }),
  ]);
  t.same(edited.effects, [{ type: "action", action: { kind: "incast", to: "h1", from: 1, bytes: 512_000 } }]);
  const bad = keys([k("i"), k("", { tab: true }), k("9"), k("", { return: true })]);
  t.equal(bad.effects.length, 0);
  t.match((bad.ui.prompt as { error: string }).error, /senders must be 1-2/);
  const badHost = keys([k("i"), k("x"), k("", { return: true })]);
  t.match((badHost.ui.prompt as { error: string }).error, /receiver must be a host/);
  const badSize = keys([
    k("i"),
    k("", { upArrow: true }),
    k("u", { ctrl: true }),
    k("lots"),
    k("", { return: true }),
  ]);
  t.match((badSize.ui.prompt as { error: string }).error, /not a size/);
  t.equal(keys([k("i"), k("", { escape: true })]).ui.prompt, null);
  t.equal(keys([k("i"), k("q")]).effects.length, 0, "q is text in a form");
});

t.test("UDP form", async (t) => {
  t.same(keys([k("u"), k("", { return: true })]).effects, [
    { type: "action", action: { kind: "udp", from: "h1", to: "h3", rateBps: 10e9 } },
  ]);
  const same = keys([k("u"), k("", { tab: true }), k("u", { ctrl: true }), k("h1"), k("", { return: true })]);
  t.match((same.ui.prompt as { error: string }).error, /another host/);
  const rate = keys([
    k("u"),
    k("", { upArrow: true }),
    k("u", { ctrl: true }),
    k("fast"),
    k("", { return: true }),
  ]);
  t.match((rate.ui.prompt as { error: string }).error, /not a rate/);
});

t.test("choosers: link, kill, restart, preset", async (t) => {
  t.same(
    keys([k("l"), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "link", node: "leaf1", port: 1, up: false } }],
    "Enter takes an up link down",
  );
  t.same(
    keys([k("l"), k("", { downArrow: true }), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "link", node: "h1", port: 1, up: true } }],
    "and brings a down link up",
  );
  t.same(
    keys([k("l"), k("", { upArrow: true }), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "link", node: "h1", port: 1, up: true } }],
    "the list wraps",
  );
  t.same(
    keys([k("2"), k("n"), k("n"), k("k"), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "device", node: "h1", running: false } }],
    "kill offers the node on screen",
  );
  t.same(
    keys([k("r"), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "device", node: "leaf1", running: true } }],
    "restart offers a stopped node",
  );
  t.same(
    keys([k("t"), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "set", change: switchChange({ profile: "default" }) } }],
    "t opens on the preset in use",
  );
  t.same(keys([k("t"), k("", { end: true }), k("", { return: true })]).effects, [
    { type: "action", action: { kind: "set", change: switchChange({ profile: "conservative" }) } },
  ]);
  t.equal(keys([k("k"), k("q")]).ui.prompt, null, "q cancels a chooser");
  t.same(keys([k("s")]).effects, [{ type: "action", action: { kind: "stop", workloads: "all" } }]);
  t.same(keys([k("l")], INITIAL_UI, { ...CTX, links: [] }).effects, [
    { type: "notice", text: "nothing to choose for link" },
  ]);
});

t.test("node selection", async (t) => {
  const node = keys([k("2")]).ui;
  t.equal(keys([k("n")], node).ui.node, 1);
  t.equal(keys([k("", { rightArrow: true })], node).ui.node, 1);
  t.equal(keys([k("p")], node).ui.node, 4, "wraps backwards");
  t.equal(keys([k("", { leftArrow: true })], node).ui.node, 4);
  const ports = { ...CTX, rows: 3 };
  t.equal(
    keys([k("", { downArrow: true }), k("", { downArrow: true }), k("", { downArrow: true })], node, ports).ui
      .port,
    2,
  );
  t.equal(
    keys([k("", { end: true }), k("n")], node, ports).ui.port,
    0,
    "a new node starts at its first port",
  );
  t.equal(keys([k("n")]).ui.node, 0, "n does nothing outside the node view");
});

t.test("scrolling lists and the event log", async (t) => {
  t.equal(keys([k("", { downArrow: true }), k("", { downArrow: true })]).ui.scroll.fabric, 2);
  t.equal(keys([k("", { pageDown: true })]).ui.scroll.fabric, 9);
  t.equal(keys([k("", { end: true })]).ui.scroll.fabric, 20, "rows - page");
  t.equal(keys([k("", { end: true }), k("", { pageDown: true })]).ui.scroll.fabric, 20, "clamped");
  t.equal(keys([k("", { upArrow: true })]).ui.scroll.fabric, 0);
  t.equal(keys([k("3"), k("", { downArrow: true })]).ui.scroll.flows, 1);
  const events = keys([k("4")]).ui;
  const up = keys([k("", { upArrow: true })], events);
  t.same(
    up.ui.events,
    { filter: "all", offset: 1, frozenAt: 100 },
    "scrolling up holds the log at the newest event",
  );
  const more = keys([k("", { pageUp: true })], up.ui, { ...CTX, eventsTotal: 150 });
  t.same(more.ui.events, { filter: "all", offset: 10, frozenAt: 100 }, "still held while new events arrive");
  t.same(
    keys([k("", { end: true })], more.ui).ui.events,
    { filter: "all", offset: 0, frozenAt: null },
    "End follows",
  );
  t.equal(keys([k("", { home: true })], events).ui.events.offset, 20);
  t.same(keys([k("f"), k("f")], up.ui).ui.events, { filter: "ecn", offset: 0, frozenAt: null });
});

t.test("simulation keys, and what a live lab says to them", async (t) => {
  const sim = { ...CTX, sim: true };
  t.same(keys([k(" ")], INITIAL_UI, sim).effects, [{ type: "pause" }]);
  t.same(keys([k("+")], INITIAL_UI, sim).effects, [{ type: "speed", factor: 0.5 }]);
  t.same(keys([k("-")], INITIAL_UI, sim).effects, [{ type: "speed", factor: 2 }]);
  t.same(keys([k(" ")]).effects, [{ type: "notice", text: "a live lab cannot pause" }]);
  t.same(keys([k("+")]).effects, [{ type: "notice", text: "a live lab's dilation is fixed" }]);
});

t.test("a run of characters becomes its keys", async (t) => {
  t.same(splitKeys("ab"), [k("a"), k("b")]);
  t.same(splitKeys("\r\n\t\u007f\b\u001b"), [
    k("", { return: true }),
    k("", { return: true }),
    k("", { tab: true }),
    k("", { backspace: true }),
    k("", { backspace: true }),
    k("", { escape: true }),
  ]);
  t.same(splitKeys("\u0003\u0015"), [k("c", { ctrl: true }), k("u", { ctrl: true })], "Ctrl-C, Ctrl-U");
  t.same(keys(splitKeys("i\u0015h2\r")).effects, [
    { type: "action", action: { kind: "incast", to: "h2", from: 2, bytes: 4_000_000 } },
  ]);
});

t.test("PFC storm form (x)", async (t) => {
  t.same(
    keys([k("x"), k("", { return: true })]).effects,
    [{ type: "action", action: { kind: "pfc-storm", host: "h3", priority: 3 } }],
    "the last host, priority 3",
  );
  // On the node view of a host, that host.
  const onH1 = keys([k("2"), k("n"), k("n"), k("x"), k("", { return: true })]);
  t.same(
    onH1.effects,
    [{ type: "action", action: { kind: "pfc-storm", host: "h1", priority: 3 } }],
    "the host on screen",
  );
  const stop = keys([
    k("x"),
    k("", { tab: true }),
    k("u", { ctrl: true }),
    k("off"),
    k("", { return: true }),
  ]);
  t.same(
    stop.effects,
    [{ type: "action", action: { kind: "pfc-storm", host: "h3", priority: null } }],
    "off stops the host's storm",
  );
  const badPrio = keys([
    k("x"),
    k("", { tab: true }),
    k("u", { ctrl: true }),
    k("9"),
    k("", { return: true }),
  ]);
  t.match((badPrio.ui.prompt as { error: string }).error, /priority must be 0-7, or off/);
  t.equal(badPrio.effects.length, 0);
  const badHost = keys([k("x"), k("u", { ctrl: true }), k("leaf1"), k("", { return: true })]);
  t.match(
    (badHost.ui.prompt as { error: string }).error,
    /host must be one of: h1, h2, h3/,
    "a switch cannot storm",
  );
  t.equal(keys([k("x"), k("", { escape: true })]).ui.prompt, null);
});
