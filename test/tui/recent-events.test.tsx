// On a tall screen the fabric view's spare rows show recent events; a run that only marks ECN must not
// look idle ("none yet" over empty rows).
import t from "tap";
import { fabricLines } from "../../src/tui/components/FabricView.js";
import { eventGroup } from "../../src/tui/event-filter.js";
import { dashboard } from "./fixtures/dashboard.js";

t.test("with only ECN/CNP events, the spare rows show them", async (t) => {
  const d = await dashboard({ columns: 120, rows: 40 });
  const state = d.store.getState();
  d.ui.unmount();
  const ecnOnly = state.events.filter((l) => eventGroup(l.event) === "ecn");
  t.ok(ecnOnly.length >= 5, `the fixture has ECN/CNP events (${ecnOnly.length})`);
  const lines = fabricLines({ ...state, events: ecnOnly }, 0, 120, 40, { colour: false }).lines.map((l) =>
    l.map((s) => s.text).join(""),
  );
  const text = lines.join("\n");
  t.notMatch(text, /none yet/);
  t.match(text, /no pauses, drops or failures yet/);
  const empty = lines
    .slice(lines.findIndex((l) => /no pauses, drops/.test(l)))
    .filter((l) => l.trim() === "");
  t.equal(empty.length, 0, "no empty rows under it");
  t.end();
});
