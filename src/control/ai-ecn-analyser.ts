// AI ECN's central mode: one analyser for the whole lab, as an SDN controller would be. Switches with
// `ecn.ai.mode: central` publish each queue's features every period (an `info` event whose detail is
// `{"aiEcn":"features",...}`, with the XOFF bound and the controller's knobs); the analyser keeps the
// controller state per (switch, queue), runs the same controller a switch runs in local mode
// (switch/features/ai-ecn-controller.ts) and pushes new thresholds with the switches' existing
// `ecn-thresholds` command. It sees devices only through telemetry and commands, so the simulator and the
// live lab drive it the same way.

import type { TelemetryEvent } from "../device/contract.js";
import {
  type AiEcnControl,
  type AiEcnFeatures,
  type AiEcnState,
  aiEcnStep,
  safeThresholds,
  templateOf,
} from "../switch/features/ai-ecn-controller.js";
import type { EcnThresholdsCommand } from "../switch/features/wred-ecn.js";

interface FeatureReport {
  readonly aiEcn: "features";
  readonly queue: number;
  readonly xoff: number;
  readonly features: AiEcnFeatures;
  readonly control: AiEcnControl;
}

/** Emulated time from a feature report to its thresholds being applied in the simulator (the control
 * loop's round trip; in the live lab it is whatever the control socket takes). */
export const AI_ECN_CONTROL_DELAY_NS = 20_000;

export type SendThresholds = (device: string, cmd: EcnThresholdsCommand) => void;

export class AiEcnAnalyser {
  private readonly states = new Map<string, AiEcnState>();
  /** Threshold changes pushed. */
  changes = 0;

  constructor(private readonly send: SendThresholds) {}

  /** Any telemetry event of the lab; acts on AI ECN feature reports only. */
  onEvent(e: TelemetryEvent & { readonly device: string }): void {
    if (e.kind !== "info" || e.detail === undefined || !e.detail.startsWith('{"aiEcn":"features"')) return;
    const r = JSON.parse(e.detail) as FeatureReport;
    const key = `${e.device}/${r.queue}`;
    let s = this.states.get(key);
    const first = s === undefined;
    if (s === undefined) {
      s = {
        level: Math.round(r.features.elephantShare * (r.control.levels - 1)),
        offset: 0,
        quiet: 0,
      };
      this.states.set(key, s);
    }
    const reason = aiEcnStep(r.features, s, r.control);
    if (reason === null && !first) return;
    const thresholds = safeThresholds(templateOf(s.level, r.control), r.xoff, r.control.safety);
    this.changes++;
    this.send(e.device, {
      type: "ecn-thresholds",
      queue: r.queue,
      thresholds,
      reason: `ai-ecn central level ${s.level} (${reason ?? "first decision"})`,
    });
  }
}
