// A busy neighbour for live tests: one CPU-bound process at normal priority (sha256sum over /dev/zero),
// the load under which a live lab used to drop lossless packets (issue: a device process stalled by the
// OS reacted to PFC late). Started for one test and stopped by its teardown, also when it fails.
import { execa } from "execa";
import type { Test } from "tap";

export function cpuHog(t: Test): void {
  const hog = execa("sha256sum", ["/dev/zero"], { reject: false, stdio: "ignore" });
  t.teardown(async () => {
    hog.kill("SIGKILL");
    await hog;
  });
}
