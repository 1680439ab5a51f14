// The receiver echoes the INT block of the data packet an ACK answers, and none when that packet carried
// none (docs/int.md): after the hosts change from HPCC to DCTCP, the QPs HPCC used earlier answer DCTCP's
// packets with plain ACKs, not with the last HPCC block they kept.
import t from "tap";
import { runScenarioSim } from "../../src/run/run-sim.js";
import { resolveScenario } from "../../src/scenario/scenario.js";
import { scenarioFile } from "../../src/scenario/schema.js";
import { IntMode, intBlockAt, intModeAt, intOffset } from "../../src/wire/int-md.js";
import { Opcode } from "../../src/wire/roce-opcodes.js";

const BTH = 14 + 20 + 8;

const sc = resolveScenario(
  scenarioFile.parse({
    name: "int-echo",
    topology: "default",
    duration: "300us",
    overrides: { hosts: { cc: "hpcc", transport: { ackReqEvery: 1 } }, switches: { int: { enabled: true } } },
    timeline: [
      { at: "10us", start: { type: "incast", name: "hpcc", to: "h8", from: ["h1", "h2"], size: "64KB" } },
      { at: "100us", set: { hosts: { cc: "dctcp" } } },
      { at: "110us", start: { type: "incast", name: "dctcp", to: "h8", from: ["h1", "h2"], size: "64KB" } },
    ],
  }),
  "docs/examples/scenario.yaml",
  null,
);

t.test("ACKs echo INT while the data carries it, and stop when it no longer does", async (t) => {
  const acks = { before: { echo: 0, plain: 0 }, after: { echo: 0, plain: 0 } };
  const { report } = runScenarioSim(sc, {
    onFrame: (now, from, _to, f) => {
      if (from.device !== "h8" || f.length <= BTH || f[BTH] !== Opcode.Acknowledge) return;
      const at = intOffset(f, BTH);
      const length = intBlockAt(f, at, f.length - 4);
      const side = now < 100_000 ? acks.before : acks.after;
      if (length > 0 && intModeAt(f, at) === IntMode.Echo) side.echo++;
      else if (length === 0) side.plain++;
    },
  });
  t.equal(report.summary.flowsCompleted, 4, "both incasts complete");
  t.ok(acks.before.echo >= 32, `HPCC: ${acks.before.echo} ACKs echo the hops`);
  t.equal(acks.before.plain, 0, "none without");
  t.ok(acks.after.plain >= 32, `DCTCP: ${acks.after.plain} plain ACKs`);
  t.equal(acks.after.echo, 0, "no stale echo after the change");
});

t.test(
  "HPCC, TIMELY and DCTCP ask for an ACK per data packet themselves; DCQCN keeps ackReqEvery",
  async (t) => {
    for (const [cc, perAck] of [
      ["hpcc", 1],
      ["timely", 1],
      ["dctcp", 1],
      ["dcqcn", 8],
    ] as const) {
      const run = resolveScenario(
        scenarioFile.parse({
          name: `acks-${cc}`,
          topology: "default",
          duration: "200us",
          overrides: { hosts: { cc }, switches: { int: { enabled: true } } },
          timeline: [{ at: "10us", start: { type: "flow", name: "f", from: "h1", to: "h8", size: "256KB" } }],
        }),
        "docs/examples/scenario.yaml",
        null,
      );
      let data = 0;
      let acks = 0;
      const { report } = runScenarioSim(run, {
        onFrame: (_now, from, _to, f) => {
          if (f.length <= BTH) return;
          const op = f[BTH]!;
          if (from.device === "h1" && op >= Opcode.RdmaWriteFirst && op <= Opcode.RdmaWriteOnly) data++;
          if (from.device === "h8" && f[BTH] === Opcode.Acknowledge) acks++;
        },
      });
      t.equal(report.summary.flowsCompleted, 1, `${cc}: the flow completes`);
      // 256,000 bytes in 4,096-byte packets: 63 data packets, the last always asks for an ACK.
      t.equal(data, 63, `${cc}: 63 data packets`);
      t.equal(acks, Math.ceil(63 / perAck), `${cc}: ${acks} ACKs (one per ${perAck})`);
    }
  },
);
