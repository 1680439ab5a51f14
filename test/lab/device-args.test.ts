// Extra Node flags for live device processes (profiling): parsed from the environment, never a shell.
import t from "tap";
import { deviceNodeArgs, supervisorNodeArgs } from "../../src/lab/live/device-process.js";

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

t.test("the supervisor's flags come from their own variable, checked the same way", (t) => {
  t.same(supervisorNodeArgs({ ROCELAB_DEVICE_NODE_ARGS: "--cpu-prof" }), [], "not the devices' variable");
  t.same(supervisorNodeArgs({ ROCELAB_SUPERVISOR_NODE_ARGS: " --heapsnapshot-signal=SIGUSR2 " }), [
    "--heapsnapshot-signal=SIGUSR2",
  ]);
  t.throws(
    () => supervisorNodeArgs({ ROCELAB_SUPERVISOR_NODE_ARGS: "x" }),
    /ROCELAB_SUPERVISOR_NODE_ARGS: "x" is not a Node flag/,
  );
  t.end();
});
