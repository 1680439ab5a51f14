// Path navigation on a real lab (lab name h12bx): LLDP tables in `rocelab stats`, then the controller
// (`rocelab path-nav`) plans the QPs of a running incast; real probes of every QP's 5-tuple (`rocelab
// trace --flows`) must cross the spine the plan chose, in host mode (source ports) and network mode
// (switch entries), and again after a spine link fails and the controller re-plans. Needs root.
import t, { type Test } from "tap";
import { pollUntil, requireRoot, rl, statsOf, upLab } from "../helpers/live.js";

requireRoot(t);

const LAB = "h12bx";
t.teardown(async () => {
  await rl(["down", "--name", LAB]);
});

interface PlanJson {
  readonly links: number;
  readonly flows: readonly {
    demand: { src: string; dst: string; qpn: number };
    path: { sw: string }[] | null;
  }[];
}
interface FlowPathJson {
  readonly src: string;
  readonly qpn: number;
  readonly switches: readonly string[];
}

async function pathNav(mode: string): Promise<PlanJson> {
  const r = await rl(["path-nav", mode, "--json", "--name", LAB], 180_000);
  if (r.exitCode !== 0) throw new Error(`path-nav ${mode}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as PlanJson;
}

async function traced(): Promise<FlowPathJson[]> {
  const r = await rl(["trace", "--flows", "--json", "--name", LAB], 180_000);
  if (r.exitCode !== 0) throw new Error(`trace --flows: ${r.stderr}`);
  return JSON.parse(r.stdout) as FlowPathJson[];
}

/** Each planned QP's spine, and the spine its probes crossed. */
async function spinesMatch(t: Test, plan: PlanJson, what: string): Promise<void> {
  const paths = await traced();
  for (const f of plan.flows) {
    const planned = f.path?.map((h) => h.sw) ?? [];
    const probe = paths.find((p) => p.src === f.demand.src && p.qpn === f.demand.qpn);
    t.same(
      probe?.switches,
      planned,
      `${what}: ${f.demand.src} -> ${f.demand.dst} crosses ${planned.join(" > ")}`,
    );
  }
}

t.test("path navigation on the live lab: LLDP, host and network mode, re-plan after a failure", async (t) => {
  await upLab(t, LAB);
  const incast = await rl(["inject", "incast", "--to", "h8", "--from", "3", "--size", "64MB", "--name", LAB]);
  t.equal(incast.exitCode, 0, "a 3-to-1 incast from leaf1's hosts to h8 on leaf2");

  const network = await pathNav("network");
  t.equal(network.links, 4, "the controller heard all 4 switch links over LLDP");
  t.equal(network.flows.length, 3);
  const leaf1 = await statsOf(LAB, "leaf1");
  const lldp = leaf1.kind === "switch" ? leaf1.detail?.lldp : undefined;
  t.same(
    lldp?.neighbours.map((n) => [n.portName, n.systemName, n.portId]),
    [
      ["eth1", "spine1", "eth1"],
      ["eth2", "spine2", "eth1"],
    ],
    "rocelab stats shows leaf1's LLDP neighbours as wired",
  );
  // The switches write their entries one after another (pathTable.installLatency, 1 ms of emulated time
  // each by default): the probes are sent once every switch says none is pending.
  const pending = async () => {
    let n = 0;
    for (const sw of ["leaf1", "leaf2", "spine1", "spine2"]) {
      const s = await statsOf(LAB, sw);
      n += s.kind === "switch" ? (s.detail?.pathTableState?.pending ?? 0) : 0;
    }
    return n;
  };
  t.equal(await pollUntil(pending, (n) => n === 0, 60_000, 250), 0, "every switch wrote its entries");
  await spinesMatch(t, network, "network mode");

  const host = await pathNav("host");
  await spinesMatch(t, host, "host mode");

  t.equal((await rl(["inject", "link-down", "leaf1:eth1", "--name", LAB])).exitCode, 0);
  const after = await pathNav("host");
  t.equal(after.links, 3, "LLDP shows the failed link gone");
  t.ok(
    after.flows.every((f) => f.path?.[1]?.sw === "spine2"),
    "every QP planned through spine2",
  );
  await spinesMatch(t, after, "host mode after the failure");
});
