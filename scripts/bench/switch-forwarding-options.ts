// switch-forwarding's command line: its options, their defaults and the usage text.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parseRate } from "../../src/device/units.js";
import { interfaceMtu } from "../../src/lab/live/provision.js";
import { type PortBackend, portBackend } from "../../src/runtime/realtime/port-io.js";
import { maxFrameBytes } from "../../src/scenario/switch-config.js";
import { DEFAULT_MTU } from "../../src/scenario/topology.js";
import { parseRates } from "./common.js";
import { Phase } from "./switch-forwarding-report.js";

/** A build's switch program, relative to its root (the lab's: lab/live/paths.ts entryPath). */
export const BASE_ENTRY = "dist/bundle/main/device-main.js";

export const DEFAULTS = {
  seconds: 5,
  warmupSeconds: 1,
  loads: "10k,25k,50k,75k,100k,125k,150k,200k,max",
  frameBytes: maxFrameBytes(DEFAULT_MTU),
  dilation: 1,
  rate: "400G",
  phases: "baseline,switch,port-io,kernel",
  portIo: "pcap,ring",
  generator: "ring",
  quietWait: 60,
  rounds: 2,
} as const;

export const USAGE = `usage: node dist/tools/bench/switch-forwarding.js [options]   (as root)
  --seconds S         measured seconds per load level (default ${DEFAULTS.seconds})
  --warmup S          seconds of traffic before each phase's first level (default ${DEFAULTS.warmupSeconds})
  --loads LIST        offered frame rates, e.g. 10k,50k,max (default ${DEFAULTS.loads})
  --frame-bytes N     frame size without FCS (default ${DEFAULTS.frameBytes}, the lab's full-size RoCE frame)
  --dilation D        the switch's clock dilation (default ${DEFAULTS.dilation})
  --rate R            emulated port rate of the switch (default ${DEFAULTS.rate})
  --phases LIST       any of baseline,switch,port-io,kernel (default all four); port-io: the switch's
                      port I/O alone, every frame from eth1 sent out eth2 by a process with no device
  --port-io LIST      the switch phase's port backends, run one after the other (default ${DEFAULTS.portIo})
  --generator IO      how the generator sends: ring (sendmmsg, default) or pcap (a send() per frame)
  --quiet-wait S      before each level, wait up to S seconds for the machine to be quiet (default ${DEFAULTS.quietWait})
  --base DIR          also run the switch phase with another build's switch process (DIR: the root of a
                      checkout built by \`node scripts/setup\`, readable by the devices' user), alternating
                      with this build's, and print the per-frame CPU of both and their ratio
  --rounds N          with --base: rounds of (this build, base) per backend, the order swapped every round
                      (default ${DEFAULTS.rounds})
  --save FILE         also write the measurements as JSON
  --from FILE         print the report of a saved run (no measuring, no root)`;

export interface Options {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly loads: readonly number[];
  readonly frameBytes: number;
  readonly dilation: number;
  readonly rateBps: number;
  readonly phases: readonly Phase[];
  readonly portIo: readonly PortBackend[];
  readonly generator: PortBackend;
  readonly quietWaitSeconds: number;
  /** Root of another build whose switch process is measured alternately with this one's (null: none). */
  readonly base: string | null;
  readonly rounds: number;
  /** Write the measurements (JSON) here. */
  readonly save: string | undefined;
  /** Print the report of a saved run instead of measuring. */
  readonly from: string | undefined;
}

export function parseOptions(argv: readonly string[]): Options | null {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seconds: { type: "string" },
      warmup: { type: "string" },
      loads: { type: "string" },
      "frame-bytes": { type: "string" },
      dilation: { type: "string" },
      rate: { type: "string" },
      phases: { type: "string" },
      "port-io": { type: "string" },
      generator: { type: "string" },
      "quiet-wait": { type: "string" },
      base: { type: "string" },
      rounds: { type: "string" },
      save: { type: "string" },
      from: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return null;
  const num = (text: string | undefined, fallback: number, what: string, min: number): number => {
    const v = text === undefined ? fallback : Number(text);
    if (!(v >= min)) throw new Error(`${what} must be a number >= ${min}, got ${text}`);
    return v;
  };
  const rateBps = parseRate(values.rate ?? DEFAULTS.rate);
  if (rateBps === null) throw new Error(`--rate ${values.rate} is not a rate (for example 400G)`);
  const phases = (values.phases ?? DEFAULTS.phases).split(",").map((p) => p.trim());
  const known: readonly string[] = Object.values(Phase);
  for (const p of phases) if (!known.includes(p)) throw new Error(`unknown phase ${p} (${known.join(", ")})`);
  const frameBytes = num(values["frame-bytes"], DEFAULTS.frameBytes, "--frame-bytes", 60);
  const maxBytes = 14 + interfaceMtu(DEFAULT_MTU);
  if (frameBytes > maxBytes) throw new Error(`--frame-bytes ${frameBytes} exceeds the lab's ${maxBytes}`);
  const base = values.base === undefined ? null : resolve(values.base);
  if (base !== null && !existsSync(join(base, BASE_ENTRY)))
    throw new Error(`--base ${values.base}: no ${BASE_ENTRY} there (run \`node scripts/setup\` in it)`);
  return {
    base,
    rounds: base === null ? 1 : Math.round(num(values.rounds, DEFAULTS.rounds, "--rounds", 1)),
    seconds: num(values.seconds, DEFAULTS.seconds, "--seconds", 0.1),
    warmupSeconds: num(values.warmup, DEFAULTS.warmupSeconds, "--warmup", 0),
    loads: parseRates(values.loads ?? DEFAULTS.loads),
    frameBytes: Math.round(frameBytes),
    dilation: num(values.dilation, DEFAULTS.dilation, "--dilation", 1),
    quietWaitSeconds: num(values["quiet-wait"], DEFAULTS.quietWait, "--quiet-wait", 0),
    save: values.save,
    from: values.from,
    rateBps,
    // Always in this order: the kernel phase leaves forwarding on, which the switch phase must not see.
    phases: Object.values(Phase).filter((p) => phases.includes(p)),
    portIo: (values["port-io"] ?? DEFAULTS.portIo).split(",").map((b) => portBackend(b.trim())),
    generator: portBackend(values.generator ?? DEFAULTS.generator),
  };
}
