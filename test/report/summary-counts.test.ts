import t from "tap";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { percentiles, summarise } from "../../src/report/report.js";
import { flowReport } from "../helpers/flow-report.js";
import { nicTables } from "../helpers/stats-tables.js";

// A run where no flow completed still retransmitted: the summary must count the NICs' retransmissions,
// not only those of completed flows (which are the only ones with a completion record).
t.test("retransmissions are counted over every flow, completed or not", (t) => {
  const nic = (name: string, n: number) =>
    ({
      kind: "nic",
      name,
      counters: { ...nicTables().node, retransmitted_packets: n },
      ports: [],
    }) as unknown as AnyDeviceStats;
  const flow = flowReport(1, { dst: "h8", qp: 1 });
  const s = summarise({
    stats: [nic("h1", 1200), nic("h2", 21)],
    flows: [flow],
    latency: percentiles([]),
    durationNs: 1000,
  });
  t.equal(s.flowsCompleted, 0);
  t.equal(s.retransmits, 1221, "the NICs' retransmitted_packets, summed");
  t.end();
});
