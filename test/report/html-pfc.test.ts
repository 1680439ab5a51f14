// The report page's per-port PFC table, its one-line verdict, the chart titles wrapped to the chart's
// width and the utilisation chart without idle ports, from a synthetic report.
import t from "tap";
import { IDLE_PERCENT, linkUtilisationPlot } from "../../src/report/extra-plots.js";
import { pfcRows, pfcSection, verdict } from "../../src/report/html-pfc.js";
import { escapeHtml } from "../../src/report/html-report.js";
import { wrapText } from "../../src/report/plot-kit.js";
import type { Report } from "../../src/report/report.js";

function report(over: { lossless?: number; completed?: number; total?: number } = {}): Report {
  const port = (p: Record<string, number>) => ({ tx_busy_ns: 0, ...p });
  return {
    scenario: "synthetic",
    description: "",
    runtime: "sim",
    seed: 1,
    durationNs: 1_000_000,
    sampleNs: 10_000,
    topology: { name: "x", source: "x" },
    summary: {
      drops: { lossless: over.lossless ?? 0, lossy: 0 },
      flowsTotal: over.total ?? 4,
      flowsNotDue: 0,
      flowsCompleted: over.completed ?? 4,
      flowsUnfinished: (over.total ?? 4) - (over.completed ?? 4),
      flowsFailed: 0,
      flowsFailedBy: {},
      fctNs: null,
    } as unknown as Report["summary"],
    flows: [],
    devices: {
      leaf2: {
        kind: "switch",
        counters: {},
        ports: {
          eth5: port({ tx_prio3_pause: 7, tx_prio3_pause_duration: 400_000, tx_busy_ns: 900_000 }),
          eth1: port({ rx_prio3_pause: 2, rx_prio3_pause_duration: 250_000, tx_busy_ns: 5_000 }),
        },
      },
      spine1: {
        kind: "switch",
        counters: {},
        ports: { eth2: port({ rx_prio3_pause: 3, rx_prio3_pause_duration: 500_000, tx_busy_ns: 300_000 }) },
      },
      h1: { kind: "nic", counters: {}, ports: { eth1: port({ tx_busy_ns: 100 }) } },
    },
    links: [
      { from: "spine1:eth2", to: "leaf2:eth1", bytes: 0, utilisation: 0, fabric: true },
      { from: "leaf2:eth1", to: "spine1:eth2", bytes: 0, utilisation: 0, fabric: true },
    ],
    files: {},
    wallClockMs: 0,
  };
}

t.test("one row per paused port and priority, the most paused first, with the link's far end", (t) => {
  const rows = pfcRows(report());
  t.same(
    rows.map((r) => [r.port, r.peer, r.priority, r.xoffSent, r.xoffReceived, r.pausedNs, r.heldPeerNs]),
    [
      ["spine1:eth2", "leaf2:eth1", 3, 0, 3, 500_000, 0],
      ["leaf2:eth1", "spine1:eth2", 3, 0, 2, 250_000, 0],
      ["leaf2:eth5", "", 3, 7, 0, 0, 400_000],
    ],
  );
  const html = pfcSection(report(), escapeHtml);
  t.match(html, /<td>spine1:eth2<\/td><td>leaf2:eth1<\/td><td class="n">3<\/td><td class="n">0<\/td>/);
  t.match(html, /<td>leaf2:eth5<\/td><td>-<\/td>.*<td class="n">40\.0 %<\/td>/, "the share of the run");
  const quiet = report();
  for (const d of Object.values(quiet.devices))
    for (const p of Object.values(d.ports)) for (const k of Object.keys(p)) if (k.includes("prio")) p[k] = 0;
  t.match(pfcSection(quiet, escapeHtml), /No PFC pause frame was sent or received/);
  t.end();
});

t.test("the verdict says lossless or not, how the flows ended and where PFC held longest", (t) => {
  t.equal(
    verdict(report()),
    "lossless (no lossless drop); every flow completed; PFC held spine1:eth2 priority 3 longest: 500us (50.0 % of the run) by leaf2:eth1.",
  );
  t.match(
    verdict(report({ lossless: 12, completed: 3 })),
    /^NOT lossless: 12 frames dropped on lossless priorities; 3\/4 completed, 1 unfinished/,
  );
  t.end();
});

t.test("titles wrap at spaces", (t) => {
  t.same(wrapText("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
  t.same(wrapText("averyveryverylongword x", 5), ["averyveryverylongword", "x"]);
  t.same(wrapText("", 5), [""]);
  t.end();
});

t.test(`the utilisation chart leaves out ports below ${IDLE_PERCENT} % and says how many`, (t) => {
  const p = linkUtilisationPlot({ report: report() });
  if (typeof p === "string") return t.fail(p);
  const spec = JSON.stringify(p.spec);
  t.match(spec, /leaf2:eth5/);
  t.match(spec, /spine1:eth2/);
  t.notMatch(spec, /leaf2:eth1|h1:eth1/, "0.5 % and 0.01 % busy: idle");
  t.match(spec, /2 ports, busiest first; 2 ports below 1 % left out/);
  t.end();
});
