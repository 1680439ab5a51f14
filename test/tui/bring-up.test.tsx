// The bring-up progress: steps ticked as they finish, a spinner on the current one, a failure marked.
import t from "tap";
import { BringUp } from "../../src/tui/components/BringUp.js";
import { plainLines } from "./fixtures/dashboard.js";
import { renderAt } from "./fixtures/render.js";

t.test("steps, done and failed", async (t) => {
  const steps = [
    { id: 0, text: "creating 12 namespaces" },
    { id: 1, text: "starting 12 device processes" },
  ];
  const r = await renderAt(<BringUp title="rocelab testbed" steps={steps} done={false} error={null} />, {
    columns: 80,
    rows: 24,
    colour: false,
  });
  let lines = plainLines(r.screen());
  t.equal(lines[0], "rocelab testbed");
  t.match(lines[1], /^ {2}✓ creating 12 namespaces/);
  t.match(lines[2], /^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] starting 12 device processes/);
  r.rerender(<BringUp title="rocelab testbed" steps={steps} done={true} error={null} />);
  await new Promise((res) => setTimeout(res, 30));
  lines = plainLines(r.screen());
  t.match(lines[2], /^ {2}✓ starting/);
  r.rerender(<BringUp title="rocelab testbed" steps={steps} done={false} error="the supervisor exited" />);
  await new Promise((res) => setTimeout(res, 30));
  lines = plainLines(r.screen());
  t.match(lines[2], /^ {2}✗ starting/);
  t.match(lines[3], /the supervisor exited/);
  r.unmount();
});
