// Extra Node flags for live device processes (profiling): parsed from the environment, never a shell.
import t from "tap";
import { deviceNodeArgs } from "../../src/lab/live/device-process.js";

t.test("ROCELAB_DEVICE_NODE_ARGS", (t) => {
  t.same(deviceNodeArgs({}), [], "unset: none");
  t.same(deviceNodeArgs({ ROCELAB_DEVICE_NODE_ARGS: "  " }), [], "blank: none");
  t.same(
    deviceNodeArgs({ ROCELAB_DEVICE_NODE_ARGS: " --cpu-prof   --cpu-prof-dir=/tmp/p " }),
    ["--cpu-prof", "--cpu-prof-dir=/tmp/p"],
    "split on whitespace",
  );
  t.throws(
    () => deviceNodeArgs({ ROCELAB_DEVICE_NODE_ARGS: "--cpu-prof; rm -rf /" }),
    /"rm" is not a Node flag/,
    "anything but flags is refused",
  );
  t.end();
});
