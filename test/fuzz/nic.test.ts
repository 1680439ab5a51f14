import t from "tap";
import { fuzzNic } from "../../src/verify/fuzz/nic-target.js";
import { FUZZ_SEED, fuzzFrames } from "../helpers/fuzz.js";

const frames = fuzzFrames(5_000);

for (const [hostPort, rxBuffer] of [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
] as const) {
  const name = `NIC${hostPort ? " with host port" : ""}${rxBuffer ? " with receive buffer" : ""}`;
  t.test(`${name}: mutated frames, then a fresh RC connection completes`, (t) => {
    const r = fuzzNic({ seed: FUZZ_SEED, frames, hostPort, rxBuffer });
    t.equal(r.exceptions, 0, `no exception in ${frames} mutated + ${r.validFrames} valid frames`);
    t.same(r.faults, []);
    t.ok((r.rose.drop_malformed ?? 0) > 0, `malformed frames dropped (${r.rose.drop_malformed})`);
    t.ok((r.rose.drop_icrc ?? 0) > 0, `bad ICRCs dropped (${r.rose.drop_icrc})`);
    t.ok((r.rose.out_of_sequence ?? 0) > 0, "garbage PSNs reached the responder");
    t.ok((r.rose.acks_received ?? 0) > 0, "and ACK/NAKs the requester");
    if (hostPort)
      t.ok((r.rose["port.host_rx_frames"] ?? 0) > 0, "what is not RoCE for us went up to the host");
    if (rxBuffer) t.ok((r.rose["port.tx_prio3_pause"] ?? 0) > 0, "the receive buffer paused its peer");
    t.ok(r.linkFlaps > 0, `links flapped meanwhile (${r.linkFlaps})`);
    t.equal(r.afterFuzzCompleted, r.afterFuzzPosted, "a WRITE and a READ on a fresh QP pair completed");
    t.end();
  });
}
