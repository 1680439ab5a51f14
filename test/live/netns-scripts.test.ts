// netns/leftovers and netns/cleanup: the shell entry points for CI and for a person after a crash. They
// must find and remove a lab whose every process was SIGKILLed, without Node or the build.
import { execa } from "execa";
import t from "tap";
import { labNamespaces, labProcesses, requireRoot, rl, upLab } from "../helpers/live.js";

requireRoot(t);

const LAB = "nsscript";

function script(name: string, args: readonly string[]) {
  return execa(`netns/${name}`, args, { reject: false, env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } });
}

t.test("a SIGKILLed lab: leftovers lists it, cleanup removes it, then nothing is left", async (t) => {
  t.teardown(async () => {
    await rl(["down", "--name", LAB]);
  });
  await upLab(t, LAB);
  const pids = labProcesses(LAB);
  t.equal(pids.length, 13, "a supervisor and 12 device processes");
  for (const pid of pids) process.kill(pid, "SIGKILL");
  await new Promise((r) => setTimeout(r, 300));

  const before = await script("leftovers", [LAB]);
  t.equal(before.exitCode, 1, "leftovers exits 1 when something is left");
  t.match(before.stdout, new RegExp(`namespace rl-${LAB}-leaf1`));
  t.match(before.stdout, new RegExp(`state /run/rocelab/${LAB}`));
  t.match(before.stdout, new RegExp(`hosts /etc/netns/rl-${LAB}-h1`));
  t.match(
    before.stdout,
    /0 processes, 12 namespaces, 1 state directories, 12 \/etc\/netns directories left by lab nsscript/,
  );

  const other = await script("leftovers", ["other"]);
  t.equal(other.exitCode, 0, "another lab's name finds nothing of this one");

  const cleanup = await script("cleanup", [LAB]);
  t.equal(cleanup.exitCode, 0, cleanup.stderr);
  t.match(
    cleanup.stdout,
    /deleted 12 namespaces, 1 state directories and 12 \/etc\/netns directories of lab nsscript/,
  );
  t.same(await labNamespaces(LAB), []);
  t.equal((await script("leftovers", [LAB])).exitCode, 0, "and nothing is left");
  t.equal((await script("cleanup", [LAB])).exitCode, 0, "cleanup again is harmless");
});

t.test("a bad lab name is refused before anything runs", async (t) => {
  for (const name of ["rl-x", "UPPER", "a;b", "waytoolongforalabname"]) {
    const r = await script("cleanup", [name]);
    t.equal(r.exitCode, 2, `cleanup ${JSON.stringify(name)}`);
    t.match(r.stderr, /must be 1-16 lowercase letters and digits/);
  }
});
