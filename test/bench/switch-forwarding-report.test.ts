// switch-forwarding's bookkeeping without root: which phases run in which order, and how the port-io
// phase's runs (the port I/O alone) sit beside the switch's in the report's tables.
import t from "tap";
import { parseOptions } from "../../scripts/bench/switch-forwarding-options.js";
import {
  type LevelResult,
  Phase,
  PORT_IO_ALONE,
  portIoKey,
  switchKey,
  switchRuns,
} from "../../scripts/bench/switch-forwarding-report.js";

const rows = (fps: number): LevelResult[] => [{ requestedFps: fps } as LevelResult];

t.test("the port-io phase runs by default, after the switch and before the kernel", async (t) => {
  const opts = parseOptions([]);
  t.same(opts?.phases, [Phase.Baseline, Phase.Switch, Phase.PortIo, Phase.Kernel]);
  // Named in any order, run in the fixed one: the kernel phase leaves forwarding on.
  t.same(parseOptions(["--phases", "kernel,port-io"])?.phases, [Phase.PortIo, Phase.Kernel]);
  t.throws(
    () => parseOptions(["--phases", "echo"]),
    /unknown phase echo \(baseline, switch, port-io, kernel\)/,
  );
});

t.test("the port I/O alone is listed after every switch run, labelled as such", async (t) => {
  const results = new Map<string, LevelResult[]>([
    [Phase.Baseline, rows(1)],
    [portIoKey(), rows(2)],
    [switchKey("ring"), rows(3)],
    [Phase.Kernel, rows(4)],
    [switchKey("pcap"), []],
  ]);
  t.same(
    switchRuns(results).map((r) => [r.backend, r.rows[0]?.requestedFps]),
    [
      ["ring", 3],
      [PORT_IO_ALONE, 2],
    ],
    "runs without levels are left out; baseline and kernel are not switch runs",
  );
  const ab = new Map<string, LevelResult[]>([
    [portIoKey("base", 1), rows(1)],
    [switchKey("ring", "this", 1), rows(2)],
    [portIoKey("this", 1), rows(3)],
  ]);
  t.same(
    switchRuns(ab).map((r) => r.backend),
    ["ring this #1", `${PORT_IO_ALONE} base #1`, `${PORT_IO_ALONE} this #1`],
    "with --base each build and round keeps its label",
  );
  t.equal(portIoKey(), "port-io");
  t.equal(portIoKey("this", 2), "port-io:this #2");
});
