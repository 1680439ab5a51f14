// The guards of #40: `up` refuses a lab the machine cannot carry (nothing is created) unless --force, and
// a workload from or to a killed host is refused up front, naming it.
import t from "tap";
import { labNamespaces, requireRoot, rl, upLab } from "../helpers/live.js";

const LAB = "lmg";

t.test("up of a 208-device fat tree on this machine is refused, saying by how much", async (t) => {
  requireRoot(t);
  const r = await rl(["up", "docs/examples/fat-tree-k8.yaml", "--name", "lmgbig"]);
  t.equal(r.exitCode, 2, r.stderr);
  t.match(
    r.stderr,
    /refused: 208 devices \(128 hosts\) and 384 links need about [\d.]+ cores .*× the \d+ CPUs of this machine: .*\(--force starts it anyway\)/,
  );
  t.notMatch(r.stderr, /topology-too-large/, "the lint warning is not printed beside the refusal");
  t.same(await labNamespaces("lmgbig"), [], "nothing was created");
});

t.test("an incast including a killed host is refused with its name", async (t) => {
  requireRoot(t);
  t.teardown(async () => {
    await rl(["down", "--name", LAB]);
  });
  await upLab(t, LAB);
  const kill = await rl(["inject", "kill", "h3", "--name", LAB]);
  t.equal(kill.exitCode, 0, kill.stderr);
  const refused = await rl([
    "inject",
    "incast",
    "--to",
    "h8",
    "--from",
    "4",
    "--size",
    "100KB",
    "--name",
    LAB,
  ]);
  t.not(refused.exitCode, 0, "refused");
  t.match(
    refused.stderr,
    /workload incast-\d+ refused, no flow started: h3 is killed \(rocelab inject restart h3\)/,
  );
  const ok = await rl([
    "inject",
    "incast",
    "--to",
    "h8",
    "--from",
    "2",
    "--size",
    "100KB",
    "--wait",
    "--name",
    LAB,
  ]);
  t.equal(ok.exitCode, 0, `h1 and h2 still can: ${ok.stderr}`);
});
