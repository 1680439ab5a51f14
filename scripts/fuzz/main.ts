// `npm run fuzz`: a million mutated frames (by default) through every codec, a switch and the NIC in its
// four variants, printing frames/s, exceptions (there must be none) and the counters that rose. Exits 1
// when anything threw, a round trip failed, or a device stopped doing its job after the fuzz.
//
//   npm run fuzz                                  1,000,000 frames, seed "rocelab-fuzz"
//   npm run fuzz -- --frames 200000 --seed 7      fewer frames, another seed
//   sudo npm run fuzz -- live [--frames N ...]    into the ports of a live lab (live-main.ts)

import { parseArgs } from "node:util";
import type { Counters } from "../../src/device/contract.js";
import { buildFrameCatalog } from "../../src/verify/frame-catalog.js";
import { FrameMutator } from "../../src/verify/frame-mutator.js";
import { CODEC_NAMES, fuzzCodecs } from "./codecs.js";
import type { DeviceFault } from "./harness.js";
import { fuzzNic } from "./nic-target.js";
import { fuzzSwitch } from "./switch-target.js";

if (process.argv[2] === "live") {
  const { liveFuzzMain } = await import("./live-main.js");
  process.exit(await liveFuzzMain(process.argv.slice(3)));
}

const { values } = parseArgs({
  options: {
    frames: { type: "string", default: "1000000" },
    seed: { type: "string", default: "rocelab-fuzz" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write(
    "usage: npm run fuzz -- [--frames N] [--seed S]\n       npm run fuzz -- live [--frames N] [--seed S] [--rate FPS] [--targets NODE:ethN,...] [--name LAB]\n",
  );
  process.exit(0);
}
const total = Number(values.frames);
if (!Number.isInteger(total) || total < 10)
  throw new Error(`--frames ${values.frames}: need an integer >= 10`);
const seed = values.seed;

/** Share of the frames each target gets: codecs 40 %, the switch 30 %, the NIC variants 30 % together. */
const codecFrames = Math.round(total * 0.4);
const switchFrames = Math.round(total * 0.3);
const nicFrames = Math.floor((total - codecFrames - switchFrames) / 4);

interface Row {
  readonly target: string;
  readonly frames: number;
  readonly seconds: number;
  readonly exceptions: number;
  readonly verdict: string;
  readonly ok: boolean;
}
const rows: Row[] = [];
const faults: DeviceFault[] = [];
const rose: [string, Counters][] = [];

function timed<T>(run: () => T): [T, number] {
  const t0 = performance.now();
  const r = run();
  return [r, (performance.now() - t0) / 1000];
}

const out = (line: string) => process.stdout.write(`${line}\n`);
out(`fuzz: ${total.toLocaleString("en-US")} frames, seed "${seed}"`);

const [codecs, codecSeconds] = timed(() =>
  fuzzCodecs(
    new FrameMutator(
      seed,
      buildFrameCatalog().map((c) => c.frame),
    ),
    codecFrames,
  ),
);
rows.push({
  target: `codecs (${CODEC_NAMES.length} parsers each)`,
  frames: codecFrames,
  seconds: codecSeconds,
  exceptions: codecs.exceptions,
  verdict: `round-trip failures ${codecs.roundTripFailures}`,
  ok: codecs.exceptions === 0 && codecs.roundTripFailures === 0,
});

const [sw, switchSeconds] = timed(() => fuzzSwitch({ seed, frames: switchFrames }));
const forwarded = sw.knownGood.every(
  (k) => k.portAfter === k.portBefore && k.portAfter > 0 && k.ttlAfter === 63,
);
rows.push({
  target: "switch leaf1 (all 6 ports)",
  frames: switchFrames,
  seconds: switchSeconds,
  exceptions: sw.exceptions,
  verdict: `known-good after: ${sw.knownGood.map((k) => `eth${k.portAfter}`).join(", ")}${forwarded ? "" : " WRONG"}`,
  ok: sw.exceptions === 0 && forwarded,
});
faults.push(...sw.faults);
rose.push(["switch", sw.rose]);

for (const [hostPort, rxBuffer] of [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
] as const) {
  const name = `nic${hostPort ? " +host port" : ""}${rxBuffer ? " +rx buffer" : ""}`;
  const [nic, seconds] = timed(() => fuzzNic({ seed, frames: nicFrames, hostPort, rxBuffer }));
  const completed = nic.afterFuzzCompleted === nic.afterFuzzPosted;
  rows.push({
    target: name,
    frames: nicFrames,
    seconds,
    exceptions: nic.exceptions,
    verdict: `fresh QP after: ${nic.afterFuzzCompleted}/${nic.afterFuzzPosted} messages`,
    ok: nic.exceptions === 0 && completed,
  });
  faults.push(...nic.faults);
  rose.push([name, nic.rose]);
}

const pad = (s: string, n: number) => s.padEnd(n);
const num = (v: number) => Math.round(v).toLocaleString("en-US");
out("");
out(
  `${pad("target", 30)} ${"frames".padStart(10)} ${"s".padStart(6)} ${"frames/s".padStart(9)} ${"exc".padStart(4)}  result`,
);
for (const r of rows) {
  out(
    `${pad(r.target, 30)} ${num(r.frames).padStart(10)} ${r.seconds.toFixed(1).padStart(6)} ` +
      `${num(r.frames / r.seconds).padStart(9)} ${String(r.exceptions).padStart(4)}  ${r.verdict}`,
  );
}
const frames = rows.reduce((n, r) => n + r.frames, 0);
const seconds = rows.reduce((n, r) => n + r.seconds, 0);
const exceptions = rows.reduce((n, r) => n + r.exceptions, 0);
out(
  `${pad("total", 30)} ${num(frames).padStart(10)} ${seconds.toFixed(1).padStart(6)} ${num(frames / seconds).padStart(9)} ${String(exceptions).padStart(4)}`,
);

/** The counters worth reading: drops, errors and protocol reactions, not byte and time totals. */
const interesting =
  /drop|malformed|ignored|unknown|error|mismatch|not_for_us|duplicate|out_of_sequence|seq_err|nak|pause_ignored|cnp|retransmit/;
out("");
out("counters that rose (drops, errors and reactions; port counters summed):");
for (const [target, c] of rose) {
  const parts = Object.entries(c)
    .filter(([k]) => interesting.test(k) && !k.startsWith("port.rx_prio") && !k.startsWith("port.tx_prio"))
    .map(([k, v]) => `${k} ${num(v)}`);
  out(`  ${target}: ${parts.join(", ")}`);
}
for (const f of faults)
  out(`\nFAULT ${f.device} ${f.where} port ${f.port} at ${f.now} ns: ${f.message}\n  frame ${f.frameHex}`);
for (const f of codecs.failures)
  out(`\nCODEC ${f.codec} ${f.what} (${f.mutation}): ${f.message}\n  frame ${f.frameHex}`);
process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
