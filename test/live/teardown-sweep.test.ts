// teardown's last sweep: a lab process that starts another one while it is being stopped (as a supervisor
// still bringing devices up does) and a state directory written after teardown removed it. Without the
// sweep both outlive `down`. Root: a namespace of the lab is created and must be deleted too.
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { execa } from "execa";
import t from "tap";
import { labDir } from "../../src/lab/live/names.js";
import { findLabProcesses, teardown } from "../../src/lab/live/provision.js";
import { labNamespaces, requireRoot } from "../helpers/live.js";

requireRoot(t);

const LAB = "tsweep";

t.teardown(async () => {
  for (const p of findLabProcesses(LAB)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
  await execa("ip", ["netns", "delete", `rl-${LAB}-x`], { reject: false });
  rmSync(labDir(LAB), { recursive: true, force: true });
});

t.test("a process started during the teardown and its state directory are swept away", async (t) => {
  await execa("ip", ["netns", "add", `rl-${LAB}-x`]);
  // rocelab-tsweep-parent: on TERM it starts rocelab-tsweep-late and exits at once, so the first kill round
  // cannot know of it; the late one ignores TERM and writes the lab's state directory 200 ms later.
  const dir = labDir(LAB);
  const bin = t.testdir({
    "late.sh": `trap '' TERM\nsleep 0.2\nmkdir -p ${dir}\nsleep 60\n`,
    "parent.sh": `trap 'setsid bash -c "exec -a rocelab-${LAB}-late bash ${t.testdirName}/late.sh" & sleep 0.05; exit 0' TERM\nwhile :; do sleep 0.05; done\n`,
  });
  const child = spawn("bash", ["-c", `exec -a rocelab-${LAB}-parent bash ${bin}/parent.sh`], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  const deadline = Date.now() + 5000;
  while (findLabProcesses(LAB).length === 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  // At least one: between a fork and its exec of sleep, the parent's loop has a second process of its title.
  t.ok(findLabProcesses(LAB).length >= 1, "the lab's process runs");

  await teardown(LAB);
  await new Promise((r) => setTimeout(r, 500)); // what a survivor would do, it has done by now
  t.same(findLabProcesses(LAB), [], "no process of the lab is left");
  t.same(await labNamespaces(LAB), [], "nor a namespace");
  t.notOk(existsSync(dir), "nor its state directory");
});
