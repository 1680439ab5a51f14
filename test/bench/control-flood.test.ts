// `npm run bench -- control-flood`: what it runs. Its figures are the benchmark's to print (before/after in
// docs/reliability.md); the test checks that every flooding client is closed by the device and that the
// device process it measures is a real one.
import t from "tap";
import { measure } from "../../scripts/bench/control-flood.js";

t.test("clients without the token flooding a device's control port are all closed", async (t) => {
  const r = await measure(3, 1);
  t.ok(Number.isFinite(r.lastClosedS) && r.lastClosedS > 0, "every connection ended");
  t.ok(r.cpuS >= 0, "the device's CPU was read from /proc");
  t.ok(r.peakRssMiB > 10, "and its memory: a Node process");
});
