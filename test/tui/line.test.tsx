// One screen line of styled segments: every segment drawn in order, and no two React children with the
// same key (an empty segment used to share its column, and so its key, with the next one).
import t from "tap";
import { Line } from "../../src/tui/components/Line.js";
import { plainLines } from "./fixtures/dashboard.js";
import { renderAt } from "./fixtures/render.js";

t.test("a line with an empty segment draws the rest, without a duplicate-key warning", async (t) => {
  const errors: string[] = [];
  const realError = console.error;
  console.error = (...args: unknown[]) => {
    errors.push(args.map(String).join(" "));
  };
  t.teardown(() => {
    console.error = realError;
  });
  const segments = [{ text: "rx " }, { text: "" }, { text: "63", tone: "warn" as const }, { text: " fps" }];
  const r = await renderAt(<Line segments={segments} width={20} />, { columns: 20, rows: 1, colour: false });
  t.equal(plainLines(r.screen())[0]?.trimEnd(), "rx 63 fps");
  t.same(
    errors.filter((e) => /same key/.test(e)),
    [],
    "React reports no two children with the same key",
  );
});
