// DCQCN parameters and the three published variants as named profiles (docs/nic.md lists each value
// with its public source: the SIGCOMM 2015 paper and its ns-3 release, NVIDIA's firmware defaults, HPCC's
// ns-3 run.py).
//
// One parameter set drives both halves: the notification point (NP, the receiving NIC that turns CE marks
// into CNPs, dcqcn-np.ts) and the reaction point (RP, the sending NIC's per-QP rate controller,
// dcqcn-rp.ts). The variants differ in more than numbers: the paper updates α on every CNP and cuts on
// every CNP; ConnectX firmware and HPCC's ns-3 update α on a fixed period and cut at most once per
// monitoring period. Those structural choices are parameters here too, so one state machine covers all.

import type { BitsPerSecond, Nanoseconds } from "../../device/contract.js";

/** How the NP spaces CNPs towards one QP. */
export const CnpMode = {
  /** Paper wording: first CNP at once, then at most one per interval, sent at the interval's end if any
   * packet in it was marked (a deferred CNP). */
  ImmediateThenPeriodic: "immediate-then-periodic",
  /** ConnectX `min_time_between_cnps`: marks inside the interval after a CNP are simply not answered. */
  RateLimited: "rate-limited",
} as const;
export type CnpMode = (typeof CnpMode)[keyof typeof CnpMode];

/** When the RP updates α. */
export const AlphaUpdate = {
  /** Paper: α = (1−g)α + g on each CNP; α = (1−g)α every `alphaPeriodNs` without a CNP. */
  OnCnp: "on-cnp",
  /** ConnectX / HPCC: every `alphaPeriodNs`, α goes up if a CNP arrived in the period, else down. */
  Periodic: "periodic",
} as const;
export type AlphaUpdate = (typeof AlphaUpdate)[keyof typeof AlphaUpdate];

/** When the RP cuts its rate. */
export const CutMode = {
  /** Paper: RT = RC; RC = RC(1 − α/2) on every CNP. */
  PerCnp: "per-cnp",
  /** ConnectX / HPCC: at most one cut per `rateReduceMonitorPeriodNs`, applied if a CNP arrived. */
  Periodic: "periodic",
} as const;
export type CutMode = (typeof CutMode)[keyof typeof CutMode];

/** When the periodic cut's monitor looks at its flag. */
export const CutMonitor = {
  /** Woken by a CNP: it looks one period later, then every period until a period passes without a CNP. */
  Woken: "woken",
  /**
   * HPCC's ns-3: on a fixed grid, every period from 1 ns after the QP's first CNP, for as long as the QP
   * lives (RdmaHw::CheckRateDecreaseMlx reschedules itself): a CNP after a quiet spell is acted on at
   * the next grid point, 0 to one period later.
   */
  Grid: "grid",
} as const;
export type CutMonitor = (typeof CutMonitor)[keyof typeof CutMonitor];

/** How big a hyper-increase step is. */
export const HyperIncrease = {
  /** RT += R_HAI on every hyper-increase event (HPCC ns-3, ISEKAI's ConnectX model, OSCAR). */
  Constant: "constant",
  /** RT += R_HAI × (min(timer stage, byte stage) − F): QCN's rule, as in the first author's ns-3. */
  Linear: "linear",
} as const;
export type HyperIncrease = (typeof HyperIncrease)[keyof typeof HyperIncrease];

/** What a new rate does to the gap the pacer is already counting down after the QP's last packet. */
export const RateChange = {
  /** The gap is re-timed at once: RC now decides when the next packet may start. */
  Repace: "repace",
  /**
   * HPCC's ns-3: the gap keeps the rate it was started with and the new RC applies from the next packet
   * on (RdmaHw's *Mlx functions assign m_rate without RdmaHw::ChangeRate, which would move m_nextAvail).
   */
  NextPacket: "next-packet",
} as const;
export type RateChange = (typeof RateChange)[keyof typeof RateChange];

/** Every DCQCN knob, NP and RP (rates in bits/s, times in ns, sizes in bytes). */
export interface DcqcnParams {
  /** Profile name, for display ("paper", "nvidia", "hpcc-ns3" or a custom name). */
  readonly profile: string;
  // --- NP -----------------------------------------------------------------------------------------------
  /** Least time between two CNPs towards one QP, ns (0: a CNP for every CE-marked packet). */
  readonly cnpInterval: Nanoseconds;
  readonly cnpMode: CnpMode;
  // --- RP -----------------------------------------------------------------------------------------------
  /** Floor of the current rate, bits/s. */
  readonly minRate: BitsPerSecond;
  /** Cap of current and target rate, bits/s; 0 = the port's line rate. */
  readonly maxRateBps: BitsPerSecond;
  /** α gain g (fraction, 0..1). */
  readonly g: number;
  /** α when the first CNP of the QP arrives. */
  readonly initialAlpha: number;
  readonly alphaUpdate: AlphaUpdate;
  /** "on-cnp": decay interval K without CNP; "periodic": the α update period. ns. */
  readonly alphaPeriodNs: Nanoseconds;
  /** "on-cnp" only: update α before computing the cut (true) or after it (false). */
  readonly alphaBeforeCut: boolean;
  readonly cut: CutMode;
  /** "periodic" cut only: least time between two cuts, ns. */
  readonly rateReduceMonitorPeriodNs: Nanoseconds;
  /** "periodic" cut only: when the monitor runs. */
  readonly cutMonitor: CutMonitor;
  /** A cut removes RC·α·cutFactor (0.5: the α/2 of every variant; ConnectX rpg_gd 11). */
  readonly cutFactor: number;
  /** Largest fraction of RC one cut may remove (ConnectX rpg_min_dec_fac 50 % ⇒ 0.5; 1 = no cap). */
  readonly maxCutFraction: number;
  /** On every cut RT = RC. */
  readonly clampTargetRate: boolean;
  /** Without clampTargetRate: RT = RC also when the last increase came from the timer (not only bytes). */
  readonly clampAfterTimeInc: boolean;
  /** Rate-increase timer T, ns. */
  readonly rpTimer: Nanoseconds;
  /** Byte counter B, bytes; null = no byte counter (increase on the timer only). */
  readonly rpByteCounter: number | null;
  /** F: increase events of fast recovery before additive increase. */
  readonly fastRecoverySteps: number;
  /** Additive increase step R_AI, bits/s. */
  readonly rai: BitsPerSecond;
  /** Hyper increase step R_HAI, bits/s. */
  readonly rhai: BitsPerSecond;
  readonly hyperIncrease: HyperIncrease;
  /** RC = RT = this on the QP's first CNP, bits/s; null = keep the current rate. */
  readonly rateOnFirstCnpBps: BitsPerSecond | null;
  /** Whether a new RC re-times the pacer's gap in progress or applies from the next packet. */
  readonly rateChange: RateChange;
}

const MBPS = 1e6;

/**
 * SIGCOMM'15 as restated by its authors in CoNEXT'16 (`dcqcn-protocol.tex`, `dcqcn2.m`), with the first
 * author's ns-3 release (BOB) where the paper gives no value.
 */
const PAPER: DcqcnParams = {
  profile: "paper",
  // N = 50 µs; the quoted NP paragraph: first CNP at once, then at most one per N if a packet was marked.
  cnpInterval: 50_000,
  cnpMode: CnpMode.ImmediateThenPeriodic,
  // The paper has no floor; BOB's MinRate 100 Mb/s.
  minRate: 100 * MBPS,
  maxRateBps: 0,
  // g = 1/256 (dcqcn2.m; third-party "default parameter setting").
  g: 1 / 256,
  // α starts at 1 (dcqcn2.m initial state).
  initialAlpha: 1,
  alphaUpdate: AlphaUpdate.OnCnp,
  // K = 55 µs (CoNEXT'16 convergence text, dcqcn2.m tauprime).
  alphaPeriodNs: 55_000,
  // CoNEXT'16 equation order: the cut uses the α from before this CNP (BOB updates α first).
  alphaBeforeCut: false,
  cut: CutMode.PerCnp,
  rateReduceMonitorPeriodNs: 0,
  cutMonitor: CutMonitor.Woken,
  // RC(1 − α/2).
  cutFactor: 0.5,
  maxCutFraction: 1,
  // The restated rule sets RT = RC on every CNP (BOB's sample config: CLAMP_TARGET_RATE 1).
  clampTargetRate: true,
  clampAfterTimeInc: false,
  // T = 55 µs (dcqcn2.m timer).
  rpTimer: 55_000,
  // B = 10 MB (dcqcn2.m "B = 10e6*8/packetSize; %10MB").
  rpByteCounter: 10_000_000,
  // F = 5 ("fast recovery steps (fixed at 5)").
  fastRecoverySteps: 5,
  // R_AI = 40 Mb/s (CoNEXT'16 table); R_HAI not in the paper: BOB's sample config 200 Mb/s.
  rai: 40 * MBPS,
  rhai: 200 * MBPS,
  hyperIncrease: HyperIncrease.Constant,
  rateOnFirstCnpBps: null,
  // A packet-level choice the fluid model does not make: the pacer follows RC at once.
  rateChange: RateChange.Repace,
};

/** ConnectX firmware defaults (mlxconfig dumps of CX-5 / CX-6 Lx, NVIDIA "DCQCN Parameters" pages). */
const NVIDIA: DcqcnParams = {
  profile: "nvidia",
  // min_time_between_cnps 4 µs (CX-5, CX-6 Lx dumps; 2 µs on one other device).
  cnpInterval: 4_000,
  cnpMode: CnpMode.RateLimited,
  // rpg_min_rate 1 Mb/s.
  minRate: 1 * MBPS,
  // rpg_max_rate 0: no cap below line rate.
  maxRateBps: 0,
  // dce_tcp_g 1019 in 10-bit fixed point: α = α·1019/1024 (+ 5/1024 on a CNP period) ⇒ g = 5/1024.
  g: 5 / 1024,
  // initial_alpha_value 1023 (of 1024).
  initialAlpha: 1023 / 1024,
  alphaUpdate: AlphaUpdate.Periodic,
  // dce_tcp_rtt 1 µs.
  alphaPeriodNs: 1_000,
  alphaBeforeCut: true,
  cut: CutMode.Periodic,
  // rate_reduce_monitor_period 4 µs.
  rateReduceMonitorPeriodNs: 4_000,
  cutMonitor: CutMonitor.Woken,
  // rpg_gd 11: cut = RC·α >> 11 with α in 1/1024 units, i.e. RC·α/2.
  cutFactor: 0.5,
  // rpg_min_dec_fac 50 %: one cut keeps at least half of RC.
  maxCutFraction: 0.5,
  // clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1.
  clampTargetRate: false,
  clampAfterTimeInc: true,
  // rpg_time_reset 300 µs.
  rpTimer: 300_000,
  // rpg_byte_reset 32767 in 64-byte units (ISEKAI's reading; the unit is not confirmed by NVIDIA's text).
  rpByteCounter: 32_767 * 64,
  // rpg_threshold 1.
  fastRecoverySteps: 1,
  // rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s.
  rai: 5 * MBPS,
  rhai: 50 * MBPS,
  // The firmware is closed; ISEKAI's executable reading of NVIDIA's documentation adds a constant R_HAI.
  hyperIncrease: HyperIncrease.Constant,
  // rate_to_set_on_first_cnp 0 = not used.
  rateOnFirstCnpBps: null,
  // Not documented for the firmware: the pacer follows RC at once.
  rateChange: RateChange.Repace,
};

/** HPCC's ns-3 (`alibaba-edu/High-Precision-Congestion-Control`), run.py mode "dcqcn" at bw = 100 Gb/s. */
const HPCC_NS3: DcqcnParams = {
  profile: "hpcc-ns3",
  // The receiver ACKs every packet and flags CNP on each ACK of a marked packet: no NP spacing.
  cnpInterval: 0,
  cnpMode: CnpMode.RateLimited,
  // MIN_RATE 1000 Mb/s.
  minRate: 1000 * MBPS,
  maxRateBps: 0,
  // EWMA_GAIN 1/256.
  g: 1 / 256,
  // cnp_received_mlx sets α = 1 on the first CNP.
  initialAlpha: 1,
  alphaUpdate: AlphaUpdate.Periodic,
  // ALPHA_RESUME_INTERVAL 1 µs.
  alphaPeriodNs: 1_000,
  alphaBeforeCut: true,
  cut: CutMode.Periodic,
  // RATE_DECREASE_INTERVAL 4 µs, checked on a grid from 1 ns after the first CNP (ScheduleDecreaseRateMlx).
  rateReduceMonitorPeriodNs: 4_000,
  cutMonitor: CutMonitor.Grid,
  cutFactor: 0.5,
  // No min_dec_fac in HPCC's model.
  maxCutFraction: 1,
  // CLAMP_TARGET_RATE 0; HPCC clamps when the timer stage is not 0, which (with no byte counter) is the
  // clamp-after-time-increase rule.
  clampTargetRate: false,
  clampAfterTimeInc: true,
  // RP_TIMER 300 µs.
  rpTimer: 300_000,
  // No byte counter in HPCC's DCQCN.
  rpByteCounter: null,
  // FAST_RECOVERY_TIMES 1.
  fastRecoverySteps: 1,
  // RATE_AI = 5·bw/25 Mb/s, RATE_HAI = 50·bw/25 Mb/s at bw = 100.
  rai: 20 * MBPS,
  rhai: 200 * MBPS,
  hyperIncrease: HyperIncrease.Constant,
  // RateOnFirstCnp 1.0 (a fraction of the current rate): unchanged.
  rateOnFirstCnpBps: null,
  // The *Mlx rate changes set m_rate only: the gap in progress keeps its rate (rdma-hw.cc).
  rateChange: RateChange.NextPacket,
};

/** The named profiles. */
export const DCQCN_PROFILES: Readonly<Record<"paper" | "nvidia" | "hpcc-ns3", DcqcnParams>> = {
  paper: PAPER,
  nvidia: NVIDIA,
  "hpcc-ns3": HPCC_NS3,
};
export type DcqcnProfileName = keyof typeof DCQCN_PROFILES;

/** A profile with some parameters changed (`profile` names the result "<base>+custom" unless given). */
export function dcqcnProfile(name: DcqcnProfileName, overrides: Partial<DcqcnParams> = {}): DcqcnParams {
  const base = DCQCN_PROFILES[name];
  const changed = Object.keys(overrides).some((k) => k !== "profile");
  return { ...base, profile: changed ? `${name}+custom` : name, ...overrides };
}

/** The notification point's CNP pacing. */
export type NpSettings = Pick<DcqcnParams, "cnpInterval" | "cnpMode">;

/** NP settings used when DCQCN is off on this NIC (CNPs are still sent; ConnectX firmware defaults). */
export const NP_WHEN_RP_OFF: NpSettings = {
  cnpInterval: NVIDIA.cnpInterval,
  cnpMode: NVIDIA.cnpMode,
};
