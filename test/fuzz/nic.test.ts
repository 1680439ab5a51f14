import t from "tap";
import { fuzzNic } from "../../scripts/fuzz/nic-target.js";
import { DEFAULT_RX_BUFFER_BYTES } from "../../src/nic/features/rx-buffer.js";
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
    if (rxBuffer) {
      t.ok((r.rose["port.tx_prio3_pause"] ?? 0) > 0, "the receive buffer paused its peer");
      // The stand-in fabric ignores that pause and floods faster than any link: the buffer must hold its
      // size and count what it could not take, not grow without end (it reached 114 MB before).
      t.ok((r.rose.rx_discards_phy ?? 0) > 0, `a full buffer dropped (${r.rose.rx_discards_phy})`);
      t.ok(
        r.rxBufferPeakBytes <= DEFAULT_RX_BUFFER_BYTES,
        `the buffer never held more than its size (${r.rxBufferPeakBytes} B)`,
      );
    }
    t.ok(r.linkFlaps > 0, `links flapped meanwhile (${r.linkFlaps})`);
    t.equal(r.afterFuzzCompleted, r.afterFuzzPosted, "a WRITE and a READ on a fresh QP pair completed");
    t.end();
  });
}
