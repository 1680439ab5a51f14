// The event log's order (report/event-order.ts): both runtimes write their events by time, then device,
// then each device's own order, so a live run that is the simulator's run writes the same events.jsonl.

import t from "tap";
import { orderEvents } from "../../src/report/event-order.js";

const ev = (kind: string, tNs: number, device: string) => JSON.stringify({ kind, count: 1, t: tNs, device });

t.test("by time, then device name, then the order each device emitted them", (t) => {
  // As a live supervisor may receive them: leaf2's report before leaf1's, h8's two events of one ns.
  const live = [
    ev("ecn-mark", 51_083, "leaf2"),
    ev("cnp-sent", 56_098, "h8"),
    ev("ecn-mark", 39_383, "leaf1"),
    ev("ecn-mark", 51_083, "leaf1"),
    ev("rate-cut", 56_098, "h8"),
  ];
  t.same(
    orderEvents(live).map((l) => JSON.parse(l) as { kind: string; t: number; device: string }),
    [
      { kind: "ecn-mark", count: 1, t: 39_383, device: "leaf1" },
      { kind: "ecn-mark", count: 1, t: 51_083, device: "leaf1" },
      { kind: "ecn-mark", count: 1, t: 51_083, device: "leaf2" },
      { kind: "cnp-sent", count: 1, t: 56_098, device: "h8" },
      { kind: "rate-cut", count: 1, t: 56_098, device: "h8" },
    ],
  );
  t.same(orderEvents(orderEvents(live)), orderEvents(live), "a written log is already in order");
  const reversed = [...live].reverse();
  t.equal(orderEvents(reversed)[3], live[4], "one device's events of one ns keep their own order");
  t.end();
});

t.test("a line stamped in another key order is read whole", (t) => {
  const odd = JSON.stringify({ t: 5, device: "a", kind: "x" });
  t.same(orderEvents([ev("y", 7, "a"), odd]), [odd, ev("y", 7, "a")]);
  t.end();
});
