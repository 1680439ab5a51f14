// A prompt under the fabric view leaves fewer rows for links; the busiest link must stay in sight.
import t from "tap";
import { fabricLines } from "../../src/tui/components/FabricView.js";
import { dashboard } from "./fixtures/dashboard.js";

t.test("when the links do not all fit, the busiest one is still shown", async (t) => {
  const d = await dashboard({ columns: 80, rows: 24 });
  const state = d.store.getState();
  d.ui.unmount();
  // The deepest queue moved to the end of the table (as h8's link is on the default fabric).
  const deepest = [...state.links].sort(
    (a, b) =>
      Math.max(b.ab?.queueBytes ?? 0, b.ba?.queueBytes ?? 0) -
      Math.max(a.ab?.queueBytes ?? 0, a.ba?.queueBytes ?? 0),
  )[0]!;
  const links = [...state.links.filter((l) => l !== deepest), deepest];
  const text = (height: number) =>
    fabricLines({ ...state, links }, 0, 80, height, { colour: false })
      .lines.map((l) => l.map((s) => s.text).join(""))
      .join("\n");
  const name = `${deepest.a} ↔ ${deepest.b}`;
  t.match(text(30), name, "shown when everything fits");
  t.match(text(14), name, "and when a prompt leaves only a few rows");
  t.end();
});
