// `sim-vs-ns3 --buffers … --cc … --fat-tree …`: the options of the outcome comparison against HPCC's ns-3
// (ns3-fidelity.ts runs it), checked here; sim-vs-ns3.ts dispatches to it.

import { describeMachine } from "./common.js";
import { ns3Binary } from "./hpcc-ns3.js";
import { BYTE_SCALE, buildCase, ECMP_ALGORITHMS, type EcmpAlgorithm, type HpccWindow } from "./ns3-cases.js";
import { type CcMode, parseCcModes } from "./ns3-cc.js";
import { coreQueuesTable, ns3CoreQueues, oursCoreQueues } from "./ns3-core-queues.js";
import { fidelityCases, runFidelity } from "./ns3-fidelity.js";

/** A list of numbers from a flag, each checked. */
function numbers(flag: string, text: string, ok: (n: number) => boolean, what: string): number[] {
  const xs = text.split(",").map(Number);
  if (xs.length === 0 || xs.some((x) => !ok(x))) throw new Error(`--${flag} ${text}: expected ${what}`);
  return xs;
}

/** `--buffers` / `--cc` / `--fat-tree`: outcomes against HPCC's ns-3 (ns3-fidelity.ts). */
export async function fidelity(values: Record<string, string | boolean | undefined>): Promise<void> {
  const str = (k: string): string | undefined => values[k] as string | undefined;
  const ccs = parseCcModes(str("cc") ?? "dcqcn,off");
  const mmus = (str("mmu") ?? "default,hpcc-ns3").split(",");
  if (mmus.some((m) => m !== "default" && m !== "hpcc-ns3"))
    throw new Error(`--mmu ${str("mmu")}: expected default and/or hpcc-ns3`);
  const mib = (x: number) => Number.isInteger(x) && x >= 1 && x <= 4096;
  const buffers =
    str("buffers") === undefined ? [] : numbers("buffers", str("buffers")!, mib, "MiB, integers 1..4096");
  const fatTree =
    str("fat-tree") === undefined ? [] : numbers("fat-tree", str("fat-tree")!, mib, "MiB, integers 1..4096");
  const senders = numbers(
    "senders",
    str("senders") ?? "16,64",
    (n) => Number.isInteger(n) && n >= 1 && n <= 250,
    "1..250",
  );
  const seeds = numbers(
    "seeds",
    str("seeds") ?? "1,2,3",
    (n) => Number.isInteger(n) && n >= 1,
    "positive integers",
  );
  const load = Number(str("load") ?? "0.5");
  if (!(load > 0 && load <= 1)) throw new Error(`--load ${str("load")}: expected a fraction in (0, 1]`);
  const ms = (flag: string, dflt: number): number => {
    const x = Number(str(flag) ?? dflt);
    if (!(x > 0 && x <= 10_000))
      throw new Error(`--${flag} ${str(flag)}: expected milliseconds in (0, 10000]`);
    return Math.round(x * 1e6);
  };
  const window = { arrivalsNs: ms("arrivals", 10), stopNs: ms("stop", 60) };
  if (window.stopNs <= window.arrivalsNs)
    throw new Error(`--stop ${str("stop") ?? 60}: the run must stop after the last arrival (--arrivals)`);
  const acks = str("acks") ?? "data";
  if (acks !== "data" && acks !== "high") throw new Error(`--acks ${acks}: expected data or high`);
  const same = values["same-packets"] === true;
  if (
    same &&
    (values["byte-scale"] === true || fatTree.length > 0 || ccs.some((c) => c !== "dcqcn" && c !== "off"))
  )
    throw new Error("--same-packets: incasts with --cc dcqcn and/or off only, and not with --byte-scale");
  const ns3Dir = str("ns3");
  if (ns3Dir !== undefined) ns3Binary(ns3Dir);
  const perturb = str("perturb-starts") === undefined ? undefined : Number(str("perturb-starts"));
  if (perturb !== undefined && !(Number.isInteger(perturb) && perturb >= 1 && ns3Dir === undefined))
    throw new Error(`--perturb-starts ${str("perturb-starts")}: whole ns >= 1, and not with --ns3`);
  const ecmp = str("ecmp");
  if (ecmp !== undefined && !(ECMP_ALGORITHMS as readonly string[]).includes(ecmp))
    throw new Error(`--ecmp ${ecmp}: expected one of ${ECMP_ALGORITHMS.join(", ")}`);
  const hpccWindow = str("hpcc-window") ?? "bdp";
  if (hpccWindow !== "bdp" && hpccWindow !== "wire")
    throw new Error(`--hpcc-window ${hpccWindow}: expected bdp (payload bytes, as ns-3's) or wire`);
  const win = hpccWindow === "wire" ? { hpccWindow: hpccWindow as HpccWindow } : {};
  const print = (s = ""): void => {
    process.stdout.write(`${s}\n`);
  };
  if (values["core-queues"] === true) {
    if (fatTree.length !== 1 || ccs.length !== 1 || ns3Dir === undefined)
      throw new Error("--core-queues: one --fat-tree buffer, one --cc, and --ns3 DIR");
    const c = {
      kind: "fat-tree",
      bufferMiB: fatTree[0]!,
      cc: ccs[0] as CcMode,
      load,
      ...window,
      ...win,
    } as const;
    const scale = values["scale-flows"] === true;
    const alg = ecmp as EcmpAlgorithm | undefined;
    for (const seed of seeds) {
      const built = buildCase(c, mmus[0] as "default" | "hpcc-ns3", seed, acks, 1, scale, 0, alg);
      const ours = oursCoreQueues(built);
      print(`== core switches' egress queues at their peak, seed ${seed}: rocelab / HPCC ns-3 ==`);
      for (const l of coreQueuesTable(ours, await ns3CoreQueues(ns3Dir, built, seed))) print(l);
    }
    return;
  }
  print("== sim-vs-ns3: outcomes against HPCC's ns-3 over shared-buffer sizes ==");
  print(describeMachine());
  print(
    ns3Dir === undefined ? "HPCC ns-3: not given (--ns3 DIR); rocelab's side only" : `HPCC ns-3: ${ns3Dir}`,
  );
  await runFidelity({
    cases: fidelityCases(senders, buffers, ccs, fatTree, load, same, window).map((c) => ({ ...c, ...win })),
    mmus: mmus as ("default" | "hpcc-ns3")[],
    seeds,
    acks,
    byteScale: values["byte-scale"] === true ? BYTE_SCALE : 1,
    scaleFlows: values["scale-flows"] === true,
    ...(ns3Dir !== undefined ? { ns3Dir } : {}),
    ...(perturb !== undefined ? { perturbNs: perturb } : {}),
    ...(ecmp !== undefined ? { ecmp: ecmp as EcmpAlgorithm } : {}),
    pooled: values.pooled === true,
    markdown: values.markdown === true,
    ...(str("json") !== undefined ? { json: str("json")! } : {}),
    print,
  });
}
