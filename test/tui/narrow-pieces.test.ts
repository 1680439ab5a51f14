// The pieces of the 80×24 dashboard: busiest-node choice, time to PFC watchdog detection, word-boundary cuts.
import t from "tap";
import { busiestNode } from "../../src/tui/busiest-node.js";
import type { PortMetrics } from "../../src/tui/derive.js";
import { fitLine, lineText, pickFit, seg } from "../../src/tui/segments.js";
import { formatReal, needsText, stallText } from "../../src/tui/watchdog-eta.js";

const port = (node: string, queueBytes: number, pauses: number): [string, PortMetrics] => [
  `${node}:eth1`,
  {
    node,
    port: 1,
    queueBytes,
    txPauseDelta: pauses,
    rxPauseDelta: 0,
    txPause: pauses,
    rxPause: 0,
  } as PortMetrics,
];

t.test("the busiest node: most queued bytes, then pauses; 0 when idle", (t) => {
  const nodes = [{ name: "spine1" }, { name: "leaf1" }, { name: "leaf2" }];
  t.equal(
    busiestNode(nodes, new Map([port("spine1", 0, 0), port("leaf2", 5000, 0), port("leaf1", 10, 9)])),
    2,
  );
  t.equal(
    busiestNode(nodes, new Map([port("spine1", 0, 1), port("leaf1", 0, 4)])),
    1,
    "pauses break the tie",
  );
  t.equal(busiestNode(nodes, new Map([port("leaf2", 0, 0)])), 0, "idle: the first node");
  t.end();
});

t.test("time to detection: emulated, and real at the dilation", (t) => {
  const w = { enabled: true, semantics: "sonic", detectionNs: 200e6, pollNs: 200e6 } as const;
  // Stalled since 1 ms at 13 ms: 188 ms to go, x10000 → 1880 s real.
  t.equal(
    stallText(w, 1e6, 13e6, 10_000),
    "stalled 12.000ms/200ms, detection in 188.000ms (~31 min 20 s real)",
  );
  t.equal(needsText(w, 1000), "no queue held: needs 200ms stalled, ~3 min 20 s real");
  t.equal(needsText({ ...w, enabled: false }, 1000), "PFC watchdog is off: nothing to re-enable");
  t.equal(formatReal(0.4), "0.4 s");
  t.equal(formatReal(7200), "2 h 00 min");
  t.end();
});

t.test("a line too wide is cut between words, never inside one", (t) => {
  const cut = lineText(fitLine([seg("drops lossless 0 "), seg("lossy 12")], 22));
  t.equal(cut, "drops lossless 0 …");
  t.equal(lineText(pickFit([[seg("a long form")], [seg("short")]], 6)), "short");
  t.end();
});
