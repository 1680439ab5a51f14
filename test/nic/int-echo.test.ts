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
