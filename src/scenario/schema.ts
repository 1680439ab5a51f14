// Schemas of everything a user writes: topology files, scenario files, per-node settings. Values carry
// units as people write them ("100G", "1us", "150KB", "20%"); the schemas turn them into base units (bits/s,
// ns, bytes, fractions) and say what is allowed when they cannot.

import { z } from "zod";
import { duration, fraction, rate, size } from "../device/setting-units.js";
import { nicSettingsSchema } from "../nic/features/registry.js";
import { qpTransportSettings } from "../nic/features/transport.js";
import { settingsShape } from "../switch/features/registry.js";
import { reservedNodeProblem } from "./node-names.js";

/** Switch settings as written in topology files, profiles and scenario overrides (all optional): one
 * section per switch feature module (switch/features/registry.ts). */
export const switchSettings = z
  .object({
    profile: z.string().optional(),
    ...settingsShape(),
  })
  .strict();
export type SwitchSettings = z.infer<typeof switchSettings>;

const endpoint = z
  .string()
  .regex(
    /^[A-Za-z][\w-]*:eth[1-9]\d*$/,
    'an endpoint "node:ethN" (for example "leaf1:eth1"; ports are numbered from eth1, there is no eth0)',
  );

const linkSettings = z
  .object({
    rate: rate.optional(),
    delay: duration.optional(),
    /** Probability of losing a frame on this link (failure injection). */
    loss: fraction.optional(),
  })
  .strict();

const linkEntry = z.union([
  z.tuple([endpoint, endpoint]),
  z
    .object({
      endpoints: z.tuple([endpoint, endpoint]),
      rate: rate.optional(),
      delay: duration.optional(),
      loss: fraction.optional(),
    })
    .strict(),
]);

/** A link aggregation group (scenario/lag.ts, docs/link-aggregation.md). */
const lagEntry = z
  .object({
    name: z
      .string()
      .regex(
        /^[A-Za-z][\w-]{0,14}$/,
        "a name starts with a letter, then letters, digits, - and _ (at most 15)",
      ),
    /** The member ports on one switch ("leaf1:eth1"); their links' other ends form the group on the peer. */
    members: z.array(endpoint).min(1).max(32),
    /** static (H3C's default aggregation mode) or lacp (IEEE 802.1AX dynamic aggregation). */
    mode: z.enum(["static", "lacp"]).optional(),
    /** LACP: the periodic rate asked of the partner (fast 1 s, slow 30 s; timeout 3 × that). */
    rate: z.enum(["fast", "slow"]).optional(),
    /** Fields the member choice hashes (default: the switch's ecmp fields). */
    hash: z
      .array(z.enum(["srcIp", "dstIp", "protocol", "srcPort", "dstPort", "destQp"]))
      .min(1)
      .optional(),
    /** How members share: hash (static), lbn, or dlb-eligibility / dlb-fixed / dlb-spray (the lb section's knobs). */
    balance: z.enum(["hash", "lbn", "dlb-eligibility", "dlb-fixed", "dlb-spray"]).optional(),
  })
  .strict();
export type LagSettings = z.infer<typeof lagEntry>;

const nodeName = z
  .string()
  .regex(
    /^[A-Za-z][\w-]{0,14}$/,
    "a name starts with a letter, then letters, digits, - and _ (at most 15 in all)",
  )
  .superRefine((name, ctx) => {
    const problem = reservedNodeProblem(name);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });

/** A static route on a switch: traffic to `to` (a host's name, or a prefix "a.b.c.d/n") leaves through
 * `via` (one of the switch's ports), to the node at the other end. It replaces the computed route to the
 * same prefix — a stale or mistyped route, as operators write them, can therefore loop. */
export const staticRoute = z
  .object({
    to: z.union([
      z.string().regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/, 'a prefix like "10.1.0.5/32"'),
      z.string().regex(/^[A-Za-z][\w-]{0,14}$/, "a host's name"),
    ]),
    via: z.string().regex(/^eth[1-9]\d*$/, 'a port "ethN" of this switch'),
  })
  .strict();
export type StaticRouteSettings = z.infer<typeof staticRoute>;

const switchNode = switchSettings
  .extend({ kind: z.literal("switch"), routes: z.array(staticRoute).optional() })
  .strict();
const hostNode = z
  .object({
    kind: z.literal("host"),
  })
  .strict();

export const topologyFile = z
  .object({
    name: nodeName.optional(),
    description: z.string().optional(),
    defaults: z
      .object({
        link: linkSettings.optional(),
        switch: switchSettings.optional(),
        /** Path MTU of RoCE payloads, bytes (256, 512, 1024, 2048 or 4096). */
        mtu: z.literal([256, 512, 1024, 2048, 4096]).optional(),
      })
      .strict()
      .optional(),
    profiles: z.record(nodeName, switchSettings).optional(),
    /** VXLAN overlay: these leaves are VTEPs for their hosts' traffic (switch/features/vxlan-overlay.ts). */
    overlay: z
      .object({
        vxlan: z
          .object({ vni: z.number().int().min(0).max(0xff_ffff), vteps: z.array(nodeName).min(2) })
          .strict(),
      })
      .strict()
      .optional(),
    /** Layer-2 bridge domains: each leaf's host ports are one VLAN with MAC learning (switch/features/l2-bridge.ts). */
    bridge: z
      .object({ vlan: z.number().int().min(1).max(4094), leaves: z.array(nodeName).min(1) })
      .strict()
      .optional(),
    addressing: z
      .object({
        fabric: z
          .string()
          .regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/, "a prefix like 10.0.0.0/16")
          .optional(),
        hosts: z
          .string()
          .regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/, "a prefix like 10.1.0.0/16")
          .optional(),
      })
      .strict()
      .optional(),
    nodes: z.record(nodeName, z.discriminatedUnion("kind", [switchNode, hostNode])),
    links: z.array(linkEntry).min(1),
    /** Link aggregation groups between switches (scenario/lag.ts). */
    lags: z.array(lagEntry).optional(),
  })
  .strict();
export type TopologyFile = z.infer<typeof topologyFile>;

/**
 * NIC settings for hosts (scenario overrides, `set` steps): one section per NIC feature module, as its
 * module declares it (nic/features/registry.ts).
 */
export const nicSettings = nicSettingsSchema();
export type { NicSettings } from "../nic/features/registry.js";

const hostName = nodeName;
const hostList = z.union([z.literal("all"), z.array(hostName).min(1)]);

/** A message size: at least one byte (a message of 0 bytes would send nothing and complete nothing). */
const messageSize = size.refine((bytes) => bytes >= 1, { message: "a message size of at least 1 byte" });

const workloadCommon = {
  name: z
    .string()
    .regex(/^[\w-]+$/, "letters, digits, - and _")
    .optional(),
  op: z.enum(["write", "send", "read"]).optional(),
  /** QPs per host pair; each message is split evenly across them (multi-QP entropy). */
  qps: z.number().int().min(1).max(256).optional(),
  /** Every message on a QP pair of its own (HPCC's ns-3 flows), not the host pair's shared QPs. */
  qpPerMessage: z.boolean().optional(),
  repeat: z.number().int().min(1).max(100_000).optional(),
  interval: duration.optional(),
  /** Each message posted up to this much late, uniformly from the seeded stream (start jitter). */
  jitter: duration.optional(),
  /** QP attributes for this workload's own QPs, over the hosts' `transport` (same names and ranges). */
  transport: qpTransportSettings.optional(),
  /** After a failed completion: stop (the flow stays failed) or reconnect (new QP pair, message again). */
  onError: z.enum(["stop", "reconnect"]).optional(),
  /** pre: QPs connected out of band before the run (default); on-demand: RDMA CM on the wire per burst. */
  connect: z.enum(["pre", "on-demand"]).optional(),
};

const sizeDistribution = z.union([
  z.enum(["websearch", "hadoop"]),
  z
    .object({
      cdf: z
        .array(z.tuple([size, z.number().min(0).max(1)]))
        .min(2)
        .refine((pts) => pts.every((p, i) => i === 0 || (p[0] >= pts[i - 1]![0] && p[1] >= pts[i - 1]![1])), {
          message: "CDF points must be non-decreasing in size and probability",
        })
        .refine((pts) => pts[pts.length - 1]![1] === 1, {
          message: "the last CDF point must have probability 1",
        }),
    })
    .strict(),
]);

export const workloadSettings = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("incast"),
      to: hostName,
      /** The senders, or how many (the first N hosts other than `to`). */
      from: z.union([z.array(hostName).min(1), z.number().int().min(1)]),
      size: messageSize,
      ...workloadCommon,
    })
    .strict(),
  z
    .object({ type: z.literal("flow"), from: hostName, to: hostName, size: messageSize, ...workloadCommon })
    .strict(),
  z
    .object({
      type: z.literal("permutation"),
      hosts: hostList.optional(),
      size: messageSize,
      ...workloadCommon,
    })
    .strict(),
  z
    .object({
      type: z.literal("all-to-all"),
      hosts: hostList.optional(),
      size: messageSize,
      ...workloadCommon,
    })
    .strict(),
  z
    .object({
      type: z.literal("all-reduce"),
      hosts: hostList.optional(),
      size: messageSize,
      ...workloadCommon,
    })
    .strict(),
  z
    .object({
      type: z.literal("mix"),
      hosts: hostList.optional(),
      /** Offered load per host as a fraction of its link rate. */
      load: fraction,
      sizes: sizeDistribution,
      /** How long arrivals keep coming (default: to the end of the scenario). */
      duration: duration.optional(),
      ...workloadCommon,
    })
    .strict(),
]);
export type WorkloadSettings = z.infer<typeof workloadSettings>;

export const settingsChange = z
  .object({
    switches: switchSettings.optional(),
    nodes: z.record(nodeName, switchSettings).optional(),
    hosts: nicSettings.optional(),
  })
  .strict();

export type SettingsChangeSettings = z.infer<typeof settingsChange>;

const step = z.union([
  z.object({ at: duration, start: workloadSettings }).strict(),
  z.object({ at: duration, set: settingsChange }).strict(),
  z
    .object({
      at: duration,
      link: z.union([z.object({ down: endpoint }).strict(), z.object({ up: endpoint }).strict()]),
    })
    .strict(),
  z.object({ at: duration, stop: z.union([z.literal("all"), z.array(z.string()).min(1)]) }).strict(),
  z
    .object({
      at: duration,
      /** Failure injection: a host's NIC starts (or stops) a PFC storm (nic/l2/pfc-storm.ts). */
      inject: z.union([
        z
          .object({
            pfcStorm: hostName,
            /** The stormed priority (default 3, the lossless RoCE class). */
            priority: z.number().int().min(0).max(7).optional(),
            /** Time between the storm's XOFF frames (default: half the 0xffff-quanta pause time). */
            interval: duration.optional(),
          })
          .strict(),
        z.object({ stopPfcStorm: hostName }).strict(),
        /** A static route added on a switch while the run goes: a stale route, a routing loop. */
        z.object({ route: staticRoute.extend({ node: z.string() }).strict() }).strict(),
        /** Kills a device as a crash would (its links stay up; it stops answering), or restarts it fresh. */
        z.object({ kill: z.string() }).strict(),
        z.object({ restart: z.string() }).strict(),
        /** Withdraws a route an earlier step added. */
        z
          .object({ withdrawRoute: staticRoute.pick({ to: true }).extend({ node: z.string() }).strict() })
          .strict(),
      ]),
    })
    .strict(),
]);
export type StepSettings = z.infer<typeof step>;

/** Lab-level controllers a scenario runs (path navigation: H3C RoCE overview §1.4.4). */
export const controllerSettings = z
  .object({
    /** Plan link-disjoint paths: install per-flow entries in the switches, or steer QPs by source port. */
    pathNavigation: z.enum(["network", "host"]).optional(),
    /** How often the controller reads the LLDP tables and re-plans if the fabric changed (default 20 µs). */
    interval: duration.optional(),
  })
  .strict();
export type ControllerSettings = z.infer<typeof controllerSettings>;

export const scenarioFile = z
  .object({
    name: z.string().optional(),
    description: z.string().optional(),
    /** "default" (the built-in fabric), a path relative to the scenario file, or a topology inline. */
    topology: z.union([z.string(), topologyFile]).optional(),
    seed: z.number().int().min(0).optional(),
    duration: duration,
    /** Time-series sampling interval (default: duration / 1000, at least 1 µs). */
    sample: duration.optional(),
    overrides: settingsChange.optional(),
    controller: controllerSettings.optional(),
    timeline: z.array(step).min(1),
  })
  .strict();
export type ScenarioFile = z.infer<typeof scenarioFile>;
