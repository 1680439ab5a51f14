// The reducer's `e` (re-enable PFC on what the watchdog holds) and `v` (flows: rates / paths).
import t from "tap";
import type { HeldPriority, KeyContext, KeyPress } from "../../src/tui/key-context.js";
import { INITIAL_UI, reduceKey, type UiState } from "../../src/tui/ui-state.js";

const held: HeldPriority[] = [
  { node: "leaf1", port: 3, priority: 3, state: 1, detected: 1, restored: 0 },
  { node: "leaf2", port: 5, priority: 4, state: 2, detected: 3, restored: 2 },
];
const CTX: KeyContext = {
  nodes: [
    { name: "leaf1", kind: "switch", status: "running" },
    { name: "leaf2", kind: "switch", status: "running" },
  ],
  links: [],
  preset: "default",
  sim: true,
  rows: 20,
  page: 10,
  eventsTotal: 0,
  held,
};
const k = (input: string, key: KeyPress["key"] = {}): KeyPress => ({ input, key });

function keys(presses: KeyPress[], ui: UiState, ctx: KeyContext = CTX) {
  const effects = [];
  for (const p of presses) {
    const r = reduceKey(ui, p, ctx);
    ui = r.ui;
    if (r.effect) effects.push(r.effect);
  }
  return { ui, effects };
}

t.test("e: choose, confirm with y; the node on screen first", async (t) => {
  const onLeaf2 = { ...INITIAL_UI, tab: "node" as const, node: 1 };
  const open = keys([k("e")], onLeaf2);
  t.match(open.ui.prompt, { kind: "pfc-enable", index: 0, confirm: false });
  const p = open.ui.prompt;
  t.same(
    p?.kind === "pfc-enable" ? p.items.map((h) => h.node) : null,
    ["leaf2", "leaf1"],
    "leaf2 (on screen) leads",
  );
  const done = keys([k("e"), k("", { return: true }), k("y")], onLeaf2);
  t.same(done.effects, [
    { type: "action", action: { kind: "pfc-enable", node: "leaf2", port: 5, priority: 4 } },
  ]);
  t.equal(done.ui.prompt, null);
  const second = keys([k("e"), k("", { downArrow: true }), k("", { return: true }), k("y")], INITIAL_UI);
  t.same(
    second.effects,
    [{ type: "action", action: { kind: "pfc-enable", node: "leaf2", port: 5, priority: 4 } }],
    "↓ then Enter y",
  );
  const first = keys([k("e"), k("", { return: true }), k("y")], INITIAL_UI);
  t.same(
    first.effects,
    [{ type: "action", action: { kind: "pfc-enable", node: "leaf1", port: 3, priority: 3 } }],
    "fabric view: held order",
  );
  const back = keys([k("e"), k("", { return: true }), k("n")], INITIAL_UI);
  t.match(back.ui.prompt, { kind: "pfc-enable", confirm: false }, "any other key: back to the list");
  t.same(back.effects, []);
  t.equal(keys([k("e"), k("", { return: true }), k("", { escape: true })], INITIAL_UI).ui.prompt, null);
  t.equal(keys([k("e"), k("q")], INITIAL_UI).ui.prompt, null, "q closes the list");
  t.same(keys([k("e")], INITIAL_UI, { ...CTX, held: [] }).effects, [
    { type: "notice", text: "PFC watchdog holds no queue" },
  ]);
});

t.test("v: the flows view through rates, paths and status, from the top", async (t) => {
  const flows = { ...INITIAL_UI, tab: "flows" as const, scroll: { fabric: 0, flows: 4 } };
  const r = keys([k("v")], flows);
  t.equal(r.ui.flowsMode, "paths");
  t.equal(r.ui.scroll.flows, 0);
  t.equal(keys([k("v"), k("v")], flows).ui.flowsMode, "status");
  t.equal(keys([k("v"), k("v"), k("v")], flows).ui.flowsMode, "rates");
  t.equal(keys([k("v")], INITIAL_UI).ui.flowsMode, "rates", "only in the flows view");
});
