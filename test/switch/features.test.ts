import t from "tap";
import { z } from "zod";
import type { Nanoseconds } from "../../src/device/contract.js";
import { switchSettings } from "../../src/scenario/schema.js";
import {
  defineFeature,
  type FeatureCommand,
  type FeatureModule,
  type Hook,
  type SwitchFeature,
} from "../../src/switch/features/feature.js";
import { FEATURE_MODULES, FEATURES } from "../../src/switch/features/registry.js";
import type { PacketMeta } from "../../src/switch/packet-meta.js";
import { peerIp, SwitchHarness } from "./harness.js";

/** A feature that records every hook call (or only those `active` names). */
function probe(calls: string[], active?: Hook[]): FeatureModule {
  class Probe implements SwitchFeature {
    readonly name = "probe";
    configure(): void {
      calls.push("configure");
    }
    activeHooks(): readonly Hook[] {
      return active ?? ["ingress", "classified", "admit", "enqueued", "dequeued", "pauseChanged"];
    }
    ingress(m: PacketMeta): boolean {
      calls.push(`ingress ${m.kind}`);
      return true;
    }
    classified(m: PacketMeta): void {
      calls.push(`classified pg${m.pg} q${m.queue} ${m.lossless ? "lossless" : "lossy"} qp${m.destQp}`);
    }
    admit(m: PacketMeta): boolean {
      calls.push(`admit out${m.outPort}`);
      return true;
    }
    enqueued(): void {
      calls.push("enqueued");
    }
    dequeued(m: PacketMeta): void {
      calls.push(`dequeued ${m.verdict}`);
    }
    pauseChanged(port: number, priority: number, paused: boolean, _now: Nanoseconds): void {
      calls.push(`pause ${port}/${priority} ${paused}`);
    }
    command(cmd: FeatureCommand) {
      return cmd.type === "probe" ? ({ ok: true } as const) : undefined;
    }
  }
  return defineFeature({
    key: "probe",
    doc: "test probe",
    settings: z.object({}).strict(),
    defaults: () => ({}),
    apply: (c: object) => c,
    create: () => new Probe(),
  });
}

t.test("hooks run in pipeline order, each once per packet", (t) => {
  const calls: string[] = [];
  const h = new SwitchHarness({ modules: [...FEATURE_MODULES, probe(calls)] }).start();
  calls.length = 0;
  // A RoCE packet with Dest QP 0x123456 (BTH bytes 5..7 after the UDP header).
  const frame = h.udp(1, peerIp(2));
  frame.set([0x12, 0x34, 0x56], 14 + 20 + 8 + 5);
  h.deliver(1, frame);
  h.run(h.now + 1000);
  t.same(calls, [
    "ingress 4",
    `classified pg3 q3 lossless qp${0x123456}`,
    "admit out2",
    "enqueued",
    "dequeued 0",
  ]);
  calls.length = 0;
  h.deliver(2, h.pfcFrame(2, 3, 100));
  h.run(h.now + 10_000);
  t.same(
    calls,
    ["pause 2/3 true", "pause 2/3 false"],
    "the PFC feature, earlier in the registry, consumed the frame; the probe saw the pause change",
  );
  t.end();
});

t.test("an inactive hook is never called; configure reaches every feature", (t) => {
  const calls: string[] = [];
  const h = new SwitchHarness({ modules: [...FEATURE_MODULES, probe(calls, ["enqueued"])] }).start();
  t.same(calls, ["configure"]);
  h.deliver(1, h.udp(1, peerIp(2)));
  h.run(h.now + 1000);
  t.same(calls, ["configure", "enqueued"]);
  h.command({ type: "configure", tunables: {} });
  t.equal(calls.at(-1), "configure");
  t.end();
});

t.test("commands the switch does not know go to the features", (t) => {
  const calls: string[] = [];
  const h = new SwitchHarness({ modules: [...FEATURE_MODULES, probe(calls)] });
  t.same(h.sw.command({ type: "probe" } as never, 0), { ok: true });
  const reply = h.sw.command({ type: "nonsense" } as never, 0);
  t.same(reply, { ok: false, error: "unknown switch command nonsense" });
  t.end();
});

t.test("each section has the same names in settings and in the resolved configuration", (t) => {
  for (const [key, m] of Object.entries(FEATURES)) {
    const settingsKeys = Object.keys((m.settings as unknown as z.ZodObject).shape).sort();
    const resolvedKeys = Object.keys((m as FeatureModule).defaults({ hashSeed: 1 }) as object).sort();
    t.same(resolvedKeys, settingsKeys, key);
  }
  t.end();
});

t.test(
  "settings files use the sections' schemas: units in, base units out, errors say what is allowed",
  (t) => {
    const ok = switchSettings.parse({
      pfc: { xoff: "100KB", resumeOffset: "3KiB", headroomSlack: "2us" },
      ecn: { queues: { "3": { kmin: "50KB", kmax: "200KB", pmax: "20%" } } },
    });
    t.same(ok.pfc, { xoff: 100_000, resumeOffset: 3072, headroomSlack: 2000 });
    t.same(ok.ecn?.queues?.["3"], { kmin: 50_000, kmax: 200_000, pmax: 0.2 });
    const bad = switchSettings.safeParse({ ecn: { queues: { "3": { kmin: "1MB", kmax: "1KB", pmax: 1 } } } });
    t.notOk(bad.success);
    t.match(JSON.stringify(bad.error?.issues), /kmin must not exceed kmax/);
    const typo = switchSettings.safeParse({ pfc: { resumeOfset: 1 } });
    t.notOk(typo.success, "unknown keys are refused");
    const unit = switchSettings.safeParse({ buffer: { size: "lots" } });
    t.match(JSON.stringify(unit.error?.issues), /is not a size \(for example 150KB/);
    t.end();
  },
);
