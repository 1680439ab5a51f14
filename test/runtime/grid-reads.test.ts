// A live run's time series come from each device's own reads on the scenario's grid, cut to what the series
// need (grid-reads.ts seriesView) and recorded from stats by SeriesRecorder.sample; the simulator's come
// from SeriesSampler reading the cores directly. Read at the same times, in the same device order, the
// two must write the same rows: checked here on the simulator's run of the fidelity incast.

import t from "tap";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { SeriesRecorder } from "../../src/report/series-recorder.js";
import { buildSimRun } from "../../src/run/sim-run-setup.js";
import { seriesView } from "../../src/runtime/realtime/grid-reads.js";
import { loadScenario } from "../../src/scenario/scenario.js";

t.test("series from grid reads of stats = the simulator's series, row for row", (t) => {
  const sc = { ...loadScenario("docs/experiments/fidelity/incast-pfc.yaml"), durationNs: 400_000 };
  const { fabric, sim, nics, recorder } = buildSimRun(sc, {}, false);
  const fromViews = new SeriesRecorder();
  const devices = [...fabric.switches.values(), ...nics.values()];
  // Scheduled after the run's own samples: at each time, right after them (events of a time run in order).
  for (let at = 0; at <= sc.durationNs; at += sc.sampleNs)
    sim.at(at, (now) =>
      fromViews.sample(
        now,
        devices.map((d) => seriesView(d.stats(now)) as AnyDeviceStats),
      ),
    );
  sim.run(sc.durationNs);
  const rows = (r: SeriesRecorder) => r.all.map((s) => s.lines.join("\n"));
  t.ok(recorder.queueDepth.length > 100, `${recorder.queueDepth.length} queue-depth rows`);
  t.ok(recorder.qpRate.length > 0 && recorder.flowRate.length > 0, "QP and flow rows");
  t.same(rows(fromViews), rows(recorder), "every series file the same");
  t.end();
});
