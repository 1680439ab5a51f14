// Every view at 80×24 and 120×40 from a real incast (simulated), with and without colour, and resizes.
import "./fixtures/force-colour.js";
import t, { type Test } from "tap";
import { ABBREVIATIONS } from "../../src/tui/abbreviations.js";
import { helpLines } from "../../src/tui/components/HelpOverlay.js";
import { KEY_HELP, MARKER_HELP } from "../../src/tui/key-map.js";
import { lineText } from "../../src/tui/segments.js";
import { INITIAL_UI } from "../../src/tui/ui-state.js";
import { dashboard, plainLines } from "./fixtures/dashboard.js";
import { incastFixture } from "./fixtures/fixtures.js";
import { KEY } from "./fixtures/render.js";

/** SGR escape sequences (colours and styles) and their parameters. */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[([0-9;]*)m`, "g");

const SIZES = [
  { columns: 80, rows: 24 },
  { columns: 120, rows: 40 },
] as const;

/** The frame fills the terminal exactly and nothing is wider than it. */
function checkFits(t: Test, frame: string, columns: number, rows: number): string[] {
  const lines = plainLines(frame);
  t.equal(lines.length, rows, `${rows} rows`);
  const widest = Math.max(...lines.map((l) => [...l].length));
  t.ok(widest <= columns, `no line wider than ${columns} (widest ${widest})`);
  return lines;
}

t.test("the status line says how far a busy machine has slowed a synced live lab", async (t) => {
  const fx = await incastFixture();
  const slowed = fx.during.map((s) => ({ ...s, behindNs: 812_000 }));
  const wide = await dashboard({ columns: 120, rows: 40, snapshots: slowed });
  t.match(plainLines(wide.ui.screen()).at(-1), /dilation 10000 .* behind 812\.000us/);
  wide.ui.unmount();
  const onTime = await dashboard({ columns: 120, rows: 40 });
  t.notMatch(plainLines(onTime.ui.screen()).at(-1), /behind/, "nothing when the lab keeps up");
  onTime.ui.unmount();
});

for (const { columns, rows } of SIZES) {
  t.test(`fabric view at ${columns}x${rows}`, async (t) => {
    const d = await dashboard({ columns, rows });
    const lines = checkFits(t, d.ui.screen(), columns, rows);
    const text = lines.join("\n");
    t.match(lines[0], /\[1 Fabric\]/, "tab bar, fabric active");
    t.match(text, /spines\s+spine1\[P?X?/, "spines on top");
    t.match(text, /leaves\s+leaf1\S*\s+leaf2\[X/, "leaves under them, leaf2 sending XOFF");
    t.match(text, /hosts\s+h1\[P/, "hosts at the bottom, h1 paused");
    t.match(text, /XOFF sent [1-9]/, "fabric totals");
    t.match(text, /leaf2:eth1 ↔ spine1:eth2 up .* PAUSED←/, "spine1's egress into leaf2 is paused");
    t.match(text, /h8:eth1 ↔ leaf2:eth6\s+up\s+\d+%.* (9\d|100)%/, "leaf2 -> h8 at line rate");
    t.match(lines[rows - 1], /live\s+testlab\s+t=40\.000us\s+(x|dilation )10000/, "status line");
    if (columns >= 110) {
      t.match(text, /XOFF\s*$/m, "wide: an XOFF column");
      t.match(text, /recent pauses, drops and failures/, "tall: the latest pauses below the links");
      t.match(text, /pause/i);
    } else {
      t.notMatch(text, /recent pauses/, "no room for recent events at 24 rows");
    }
    d.ui.unmount();
  });

  t.test(`node view of a switch at ${columns}x${rows}`, async (t) => {
    const d = await dashboard({ columns, rows, initialUi: { ...INITIAL_UI, tab: "node", node: 3, port: 0 } });
    const lines = checkFits(t, d.ui.screen(), columns, rows);
    const text = lines.join("\n");
    t.match(text, /◀ leaf2 ▶ switch\s+running/);
    t.match(text, /buffer [█░]+ \S+ of \S+/, "buffer bar");
    t.match(text, /PORT\s+PEER\s+UTIL\s+0\s+1\s+2\s+3\s+4\s+5\s+6\s+7\s+XOFF\s+PAUSE\s+ECN\s+DROP/);
    t.match(text, />eth1\s+spine1:eth2\s+\S+\s+·\s+·\s+·\s+\S?X/, "eth1: PG 3 in XOFF towards spine1");
    t.match(text, /eth6\s+h8:eth1\s+(9\d|100)%\s+·\s+·\s+·\s+[▁-█]/, "eth6: a queue towards h8");
    t.match(text, /eth1 → spine1:eth2\s+up/, "the selected port's detail");
    t.match(text, /^\s+3\s+[█░]+\s+\S+\s+\S+.*XOFF/m, "queue 3 with its state");
    if (columns >= 110) {
      t.match(text, /KMIN\/KMAX/, "the ECN thresholds column on wide terminals");
      t.match(
        text,
        /^\s+3\s+[█░]+.*\s50(\.0)?\s?KB\/200(\.0)?\s?KB\s/m,
        "queue 3: the aggressive thresholds",
      );
    }
    d.ui.unmount();
  });

  t.test(`node view of a host at ${columns}x${rows}`, async (t) => {
    const d = await dashboard({ columns, rows, initialUi: { ...INITIAL_UI, tab: "node", node: 4 } });
    const text = checkFits(t, d.ui.screen(), columns, rows).join("\n");
    t.match(text, /◀ h1 ▶ host \(RDMA NIC\)\s+running/);
    t.match(text, /rp_cnp_handled/);
    t.match(text, /rx pause frames\s+[1-9]/, "h1 was paused by leaf1");
    t.match(text, /h1\s+256\s+→h8/, "its QP to h8");
    d.ui.unmount();
  });

  t.test(`flows view at ${columns}x${rows}`, async (t) => {
    const d = await dashboard({ columns, rows, initialUi: { ...INITIAL_UI, tab: "flows" } });
    const text = checkFits(t, d.ui.screen(), columns, rows).join("\n");
    t.match(text, /12 QPs: 6 sending, 6 receiving/);
    t.match(text, /HOST\s+QP\s+PEER\s+RATE\s+.*TARGET\s+ALPHA\s+GOODPUT\s+b\/s\s+CNP\s+.*STATE/);
    for (const h of ["h1", "h2", "h3"]) t.match(text, new RegExp(`${h}\\s+256\\s+→h8\\s+\\S+`));
    t.match(text, /h8\s+\d+\s+←h1/);
    t.match(text, /PAUSED|sending/);
    if (columns >= 110) t.match(text, /RATE HISTORY/);
    d.ui.unmount();
  });

  t.test(`events view at ${columns}x${rows}`, async (t) => {
    const d = await dashboard({ columns, rows, initialUi: { ...INITIAL_UI, tab: "events" } });
    const text = checkFits(t, d.ui.screen(), columns, rows).join("\n");
    t.match(text, /filter all \(f\)\s+\d+ shown, \d+ since start\s+following new events/);
    t.match(text, /TIME\s+DEVICE\s+KIND\s+WHAT/);
    t.match(text, /\d+\.\d{3}us\s+\S+\s+\S+/, "emulated timestamps at µs resolution");
    d.ui.unmount();
  });

  t.test(`help overlay at ${columns}x${rows}`, async (t) => {
    const d = await dashboard({ columns, rows, initialUi: { ...INITIAL_UI, help: true } });
    // Every page, PgDn after PgDn until the footer says the last line is on screen.
    const pages: string[][] = [];
    for (let i = 0; i < 20; i++) {
      const lines = checkFits(t, d.ui.screen(), columns, rows);
      pages.push(lines);
      const footer = /lines \d+-(\d+) of (\d+)/.exec(lines.at(-2) ?? "");
      if (footer === null || footer[1] === footer[2]) break;
      await d.ui.type(KEY.pageDown);
    }
    t.ok(pages.length > 1, `the help scrolls (${pages.length} pages)`);
    t.match(pages.at(-1)!.at(-2), /lines \d+-(\d+) of \1\s/, "the last page ends with the last line");
    // The body of each page: no tab bar, status line or scroll footer.
    const body = pages.flatMap((p) => p.slice(1, -2));
    t.same(
      body.filter((l) => l.includes("…")),
      [],
      "no help line is cut",
    );
    const text = body.join("\n");
    for (const group of KEY_HELP)
      for (const [keys] of group.keys) t.ok(text.includes(keys), `key ${keys} is listed`);
    for (const [short] of [...MARKER_HELP, ...ABBREVIATIONS])
      t.ok(text.includes(short), `${short} is explained`);
    d.ui.unmount();
  });
}

t.test("help lines: one column wraps and never cuts; two columns only where both fit side by side", (t) => {
  const entries = [...KEY_HELP.flatMap((g) => g.keys), ...MARKER_HELP, ...ABBREVIATIONS];
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  for (const width of [60, 80, 110, 120, 165]) {
    const lines = helpLines(width, 40).map(lineText);
    const widest = Math.max(...lines.map((l) => l.length));
    t.ok(widest <= width, `${width} columns: widest line ${widest}`);
    t.notOk(
      lines.some((l) => l.includes("…")),
      `${width} columns: nothing cut`,
    );
    // One column: each key and its description read whole once the wrapped lines are joined.
    const joined = squash(lines.join(" "));
    for (const [k, what] of entries) t.ok(joined.includes(squash(`${k} ${what}`)), `${width}: ${k} whole`);
  }
  const wide = helpLines(200, 40).map(lineText);
  t.ok(wide.length < helpLines(120, 40).length, "200 columns: two columns, shorter than one");
  t.ok(Math.max(...wide.map((l) => l.length)) <= 200, "200 columns: nothing wider than the screen");
  t.match(
    wide.join("\n"),
    /^views {2,}abbreviations \(all times emulated\)$/m,
    "keys left, abbreviations right",
  );
  t.match(
    wide.join("\n"),
    /^ 1 2 3 4 {14}fabric, node, flows, events \(Tab, Shift-Tab cycle\) {2,}t= {17}emulated time since the lab started \(every time shown is emulated\)$/m,
    "both whole, side by side",
  );
  t.same(
    helpLines(80, 200).filter((l) => l.length === 0).length > 0,
    true,
    "a tall screen keeps the blank lines",
  );
  t.end();
});

t.test("without colour: no colour codes, and states spelled out", async (t) => {
  const plain = await dashboard({ columns: 100, rows: 30, colour: false });
  const frame = plain.ui.screen();
  const codes = [...frame.matchAll(SGR)].map((m) => m[1]!);
  t.notOk(
    codes.some((c) => /^(3\d|9\d|38)(;|$)/.test(c)),
    "no foreground colour codes",
  );
  t.notOk(codes.includes("7"), "no inverse");
  t.match(frame, /\*PAUSED\*←/, "a paused direction is marked *PAUSED*");
  plain.ui.unmount();
  const coloured = await dashboard({ columns: 100, rows: 30, colour: true });
  const cframe = coloured.ui.screen();
  t.ok(
    [...cframe.matchAll(SGR)].some((m) => m[1] === "35"),
    "with colour: pauses in magenta",
  );
  t.notMatch(cframe, /\*PAUSED\*/, "and no asterisks");
  coloured.ui.unmount();
  const fx = await incastFixture();
  const downSnap = {
    ...fx.during[1],
    now: fx.during[1].now + 1,
    links: fx.during[1].links.map((l) => (l.a === "leaf1:eth1" ? { ...l, up: false } : l)),
    devices: fx.during[1].devices.map((dv) => (dv.node === "spine2" ? { ...dv, status: "killed" } : dv)),
  };
  const down = await dashboard({
    columns: 100,
    rows: 30,
    colour: false,
    snapshots: [fx.during[0], downSnap],
  });
  const dframe = plainLines(down.ui.screen()).join("\n");
  t.match(dframe, /leaf1:eth1 ↔ spine1:eth1\s+\*DOWN\*/, "a link down reads DOWN");
  t.match(dframe, /spine2 \*KILLED\*/, "a killed node reads KILLED");
  down.ui.unmount();
});

t.test("resizes redraw at the new size", async (t) => {
  const d = await dashboard({ columns: 120, rows: 40 });
  t.match(plainLines(d.ui.screen()).join("\n"), /XOFF\s*$/m, "wide layout");
  await d.ui.resize(80, 24);
  let lines = checkFits(t, d.ui.screen(), 80, 24);
  t.notMatch(lines.join("\n"), /RATE HISTORY|XOFF\s*$/m, "narrow layout after shrinking");
  await d.ui.resize(60, 15);
  lines = checkFits(t, d.ui.screen(), 60, 15);
  t.match(lines[0], /\[1 Fabric\]/, "still usable when cramped");
  t.match(lines[14], /testlab/, "status line kept");
  await d.ui.resize(30, 8);
  checkFits(t, d.ui.screen(), 30, 8);
  await d.ui.type("i");
  checkFits(t, d.ui.screen(), 30, 8);
  await d.ui.type("\u001b");
  await d.ui.resize(132, 50);
  checkFits(t, d.ui.screen(), 132, 50);
  d.ui.unmount();
});

t.test("before any counters arrive", async (t) => {
  const d = await dashboard({ columns: 80, rows: 24, snapshots: [], events: false });
  const text = plainLines(d.ui.screen()).join("\n");
  t.match(text, /waiting for the first counters/);
  t.match(text, /spine1/, "the topology is drawn already");
  t.match(text, /t=-/);
  d.ui.unmount();
});

t.test("a list longer than the screen says which rows it shows", async (t) => {
  const d = await dashboard({ columns: 80, rows: 18 });
  let text = plainLines(d.ui.screen()).join("\n");
  t.match(text, /LINKS 1-\d+\/12 ↑↓/);
  await d.ui.type("\u001b[6~");
  text = plainLines(d.ui.screen()).join("\n");
  t.match(text, /LINKS \d+-12\/12 ↑↓/, "PgDn moves on to the last links");
  t.match(text, /h8:eth1 ↔ leaf2:eth6/);
  d.ui.unmount();
});

t.test("a tall node view shows the node's latest events", async (t) => {
  const d = await dashboard({ columns: 120, rows: 40, initialUi: { ...INITIAL_UI, tab: "node", node: 3 } });
  const text = plainLines(d.ui.screen()).join("\n");
  t.match(text, /recent events of leaf2/);
  t.match(text, /\d+\.\d{3}us\s+pfc-xoff\s+XOFF sent on eth\d p3/);
  t.notMatch(text, /spine1\s+pfc-xoff/, "only leaf2's");
  d.ui.unmount();
});
