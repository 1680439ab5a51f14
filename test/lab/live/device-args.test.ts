// Node flags for live device processes: the V8 flags every device runs with, and extra ones (profiling)
// parsed from the environment, never a shell.
import { readFileSync } from "node:fs";
import t from "tap";
import { deviceNodeArgs, supervisorNodeArgs } from "../../../src/lab/live/device-process.js";
import { DEVICE_V8_FLAGS } from "../../../src/runtime/realtime/v8-flags.js";

t.test("ROCELAB_DEVICE_NODE_ARGS", (t) => {
  t.same(deviceNodeArgs({}), [...DEVICE_V8_FLAGS], "unset: the device V8 flags only");
  t.same(deviceNodeArgs({ ROCELAB_DEVICE_NODE_ARGS: "  " }), [...DEVICE_V8_FLAGS], "blank: the same");
  t.same(
    deviceNodeArgs({ ROCELAB_DEVICE_NODE_ARGS: " --cpu-prof   --cpu-prof-dir=/tmp/p " }),
    [...DEVICE_V8_FLAGS, "--cpu-prof", "--cpu-prof-dir=/tmp/p"],
    "split on whitespace, after the device flags (so a user's value of the same flag wins)",
  );
  t.throws(
    () => deviceNodeArgs({ ROCELAB_DEVICE_NODE_ARGS: "--cpu-prof; rm -rf /" }),
    /"rm" is not a Node flag/,
    "anything but flags is refused",
  );
  t.end();
});

t.test("a small young generation for every device, in a lab and in a device container alike", (t) => {
  t.ok(DEVICE_V8_FLAGS.includes("--max-semi-space-size=1"), "1 MiB semi-spaces (v8-flags.ts says why)");
  const script = readFileSync(new URL("../../../bin/device-entrypoint", import.meta.url), "utf8");
  const exec = script.split("\n").find((l) => l.startsWith("exec "));
  t.ok(exec, "bin/device-entrypoint execs node");
  for (const flag of DEVICE_V8_FLAGS)
    t.ok(exec?.includes(` ${flag} `), `bin/device-entrypoint passes ${flag}`);
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
