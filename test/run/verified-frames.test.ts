// The verified flag over whole runs (docs/performance.md, "One CRC per frame"): every frame put on a link
// with `verified` either was built by its sender with a valid ICRC, or is the very frame its previous hop
// sent verified with nothing changed but the routing rewrite (MACs, TTL, IPv4 checksum). Every frame a
// switch changed otherwise (ECN mark, INT hop record, VXLAN encapsulation or decapsulation) goes on
// unverified, so that its receiver computes the ICRC again. Three fabrics, one for each kind of change.
import t, { type Test } from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import type { FrameTap } from "../../src/runtime/sim/simulator.js";
import { loadScenario, resolveScenario, type Scenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { EtherType, ethPayloadOffset, ethType } from "../../src/wire/ethernet.js";
import { verifyIcrcV2 } from "../../src/wire/icrc.js";

interface Tally {
  /** Verified frames a NIC built. */
  built: number;
  /** Verified frames forwarded by a switch with only the routing rewrite. */
  forwarded: number;
  /** Frames whose bytes a switch changed beyond the routing rewrite (all unverified). */
  changed: number;
  /** Frames a switch sent that no device had sent before (encapsulated, decapsulated, its own; all unverified). */
  switchNew: number;
  /** What broke the rule, described. */
  readonly wrong: string[];
}

/** Whether `a` and `b` differ beyond the routing rewrite: MACs, and the TTL and checksum of the IPv4 header. */
function changedBeyondRewrite(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return true;
  const ip = ethType(b) === EtherType.IPv4 ? ethPayloadOffset(b) : -1;
  for (let i = 12; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (ip >= 0 && (i === ip + 8 || i === ip + 10 || i === ip + 11)) continue;
    return true;
  }
  return false;
}

function tap(tally: Tally, switches: ReadonlySet<string>): FrameTap {
  const last = new WeakMap<Uint8Array, { bytes: Uint8Array; verified: boolean }>();
  return (now, from, _to, frame, verified) => {
    const bySwitch = switches.has(from.device);
    // A frame is followed by its buffer from hop to hop. A NIC forwards nothing: what it sends it built,
    // possibly in the buffer of a frame it consumed earlier (wire/frame-alloc.ts reuses those).
    const before = bySwitch ? last.get(frame) : undefined;
    last.set(frame, { bytes: frame.slice(), verified });
    const changed = before !== undefined && changedBeyondRewrite(before.bytes, frame);
    if (changed) tally.changed++;
    if (bySwitch && before === undefined) tally.switchNew++;
    if (!verified) return;
    const where = `${now} ns, ${from.device}:${from.port}`;
    if (ethType(frame) !== EtherType.IPv4) {
      tally.wrong.push(`${where}: a verified frame that is not IPv4`);
      return;
    }
    const ip = ethPayloadOffset(frame);
    const end = ip + ((frame[ip + 2]! << 8) | frame[ip + 3]!);
    if (!verifyIcrcV2(frame, ip, end)) tally.wrong.push(`${where}: verified, but its ICRC is wrong`);
    if (before === undefined) {
      if (bySwitch) tally.wrong.push(`${where}: a switch's new frame sent verified`);
      else tally.built++;
      return;
    }
    if (!before.verified) tally.wrong.push(`${where}: verified, but received unverified`);
    else if (changed) tally.wrong.push(`${where}: verified, but changed beyond the routing rewrite`);
    else tally.forwarded++;
  };
}

function check(t: Test, sc: Scenario): Tally {
  const tally: Tally = { built: 0, forwarded: 0, changed: 0, switchNew: 0, wrong: [] };
  const switches = new Set(sc.topology.nodes.filter((n) => n.kind === "switch").map((n) => n.name));
  runScenarioSim(sc, { onFrame: tap(tally, switches) });
  t.same(tally.wrong.slice(0, 5), [], "no frame broke the rule");
  t.ok(tally.built > 0, `${tally.built} verified frames built by NICs`);
  return tally;
}

function inline(name: string, overrides: Record<string, unknown>, cc = "dcqcn"): Scenario {
  return resolveScenario(
    scenarioFile.parse({
      name,
      topology: "default",
      duration: "400us",
      overrides: { ...overrides, hosts: { cc, transport: { ackReqEvery: 1 } } },
      timeline: [
        { at: "10us", start: { type: "incast", to: "h8", from: ["h1", "h2", "h5", "h6"], size: "256KB" } },
      ],
    }),
    `${name}.yaml`,
    null,
  );
}

t.test("ECN marks: a 4-to-1 incast under DCQCN with low marking thresholds", (t) => {
  const tally = check(
    t,
    inline("verified-ecn", {
      switches: { ecn: { queues: { "3": { kmin: "5KB", kmax: "20KB", pmax: "50%" } } } },
    }),
  );
  t.ok(tally.forwarded > 0, `${tally.forwarded} passed on verified by switches`);
  t.ok(tally.changed > 0, `${tally.changed} marked by a switch, each sent on unverified`);
  t.end();
});

t.test("INT: the same incast under HPCC, every switch stamping its hop", (t) => {
  const tally = check(t, inline("verified-int", { switches: { int: { enabled: true } } }, "hpcc"));
  t.ok(tally.forwarded > 0, `${tally.forwarded} passed on verified by switches (ACKs: no hop records)`);
  t.ok(tally.changed > 0, `${tally.changed} stamped by a switch, each sent on unverified`);
  t.end();
});

t.test("VXLAN: encapsulation and decapsulation across the overlay", (t) => {
  const sc = loadScenario("docs/experiments/vxlan-ecn/ecn.yaml");
  const tally = check(t, { ...sc, durationNs: 300_000 });
  t.ok(tally.switchNew > 0, `${tally.switchNew} encapsulated or decapsulated, each sent on unverified`);
  t.end();
});
