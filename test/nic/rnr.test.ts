// Receive queues and RNR (IBTA Vol. 1 9.7.5.2.8): a SEND consumes a posted receive; with none posted the
// responder answers RNR NAK with its timer code, the requester waits that long and resends, up to rnrRetry
// times (7: for ever); the application posts a used receive again recvRepost after the SEND landed.

import t from "tap";
import type { Nanoseconds } from "../../src/device/contract.js";
import { rnrTimerNs } from "../../src/nic/features/transport.js";
import { AethSyndrome } from "../../src/wire/roce.js";
import { connect, must, type Pair, pair, roceOf, runUntil } from "./support/pair.js";

/** A and B through a middlebox, A's transport settings and B's receive queue as given. */
function rig(a: Record<string, unknown>, b: Record<string, unknown>): Pair {
  const p = pair({ middlebox: true, a: { settings: { transport: a } }, b: { settings: { transport: b } } });
  connect(p, 1);
  return p;
}

/** Every RNR NAK B sends, as [psn, timer code, time]. */
function rnrNaks(p: Pair): [number, number, Nanoseconds][] {
  const seen: [number, number, Nanoseconds][] = [];
  p.box!.dropIf = (frame, from, _i, now) => {
    const h = roceOf(frame);
    if (from === 2 && h?.aeth && (h.aeth.syndrome & 0xe0) === 0x20)
      seen.push([h.bth.psn, h.aeth.syndrome & 0x1f, now]);
    return false;
  };
  return seen;
}

t.test("the IBTA RNR timer table", (t) => {
  t.same(
    [0, 1, 12, 14, 31].map(rnrTimerNs),
    [655_360_000, 10_000, 640_000, 1_280_000, 491_520_000],
    "code 0 is the longest (655.36 ms), 12 is 0.64 ms",
  );
  t.end();
});

t.test("one receive posted: the next SENDs draw RNR NAKs until it is posted again", (t) => {
  const p = rig({}, { recvDepth: 1, recvRepost: 100_000, minRnrTimer: 1 });
  const naks = rnrNaks(p);
  for (let i = 0; i < 3; i++) must(p.a, { type: "post", qpn: 1, op: "send", bytes: 100, flowId: `s${i}` });
  const end = runUntil(p.sim, () => p.a.completions.length === 3, 10_000_000, 1_000);
  t.same(
    p.a.completions.map((c) => c.status),
    ["success", "success", "success"],
    "rnrRetry 7 (the default) retries for ever",
  );
  t.ok(naks.length > 0, "RNR NAKs were sent");
  t.ok(
    naks.every(([psn, code]) => code === 1 && psn >= 1),
    "each carries our timer code (1: 10 us) and a PSN after the first SEND's",
  );
  const landed = p.a.completions[0]!.completedAt;
  t.ok(p.a.completions[1]!.completedAt >= landed + 100_000 - 5_000, "the second waited for the re-post");
  const ca = p.a.stats(end).counters;
  const cb = p.b.stats(end).counters;
  t.equal(cb.out_of_buffer, naks.length, "out_of_buffer counts every SEND without a receive");
  t.equal(ca.rnr_nak_retry_err, naks.length, "rnr_nak_retry_err counts every RNR NAK received");
  t.equal(ca.local_ack_timeout_err, 0, "the RNR waits are not timeouts");
  t.end();
});

t.test("RNR timing and rnrRetry: no receive ever posted fails after rnrRetry + 1 RNR NAKs", (t) => {
  const p = rig({ rnrRetry: 2 }, { recvDepth: 0, minRnrTimer: 14 });
  const naks = rnrNaks(p);
  must(p.a, { type: "post", qpn: 1, op: "send", bytes: 10_000, flowId: "s" });
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 10_000, flowId: "w" });
  const end = runUntil(p.sim, () => p.a.completions.length === 2, 50_000_000, 10_000);
  t.same(
    p.a.completions.map((c) => [c.flowId, c.status]),
    [
      ["s", "rnr_retry_exceeded"],
      ["w", "flushed"],
    ],
  );
  t.equal(naks.length, 3, "rnrRetry 2: the third RNR NAK fails the QP");
  const gaps = naks.slice(1).map(([, , at], i) => at - naks[i]![2]);
  t.ok(
    gaps.every((g) => g >= 1_280_000 && g < 1_300_000),
    `the requester waited the timer (code 14: 1.28 ms) before each resend: ${gaps.join(", ")} ns`,
  );
  t.equal(p.a.stats(end).counters.req_cqe_error, 1);
  t.equal(p.a.stats(end).counters.rnr_nak_retry_err, 3);
  t.end();
});

t.test("without a receive queue setting a SEND never waits (today's behaviour)", (t) => {
  const p = rig({}, {});
  const naks = rnrNaks(p);
  for (let i = 0; i < 20; i++) must(p.a, { type: "post", qpn: 1, op: "send", bytes: 100, flowId: `s${i}` });
  runUntil(p.sim, () => p.a.completions.length === 20, 10_000_000, 1_000);
  t.equal(p.a.completions.filter((c) => c.status === "success").length, 20);
  t.equal(naks.length, 0);
  t.equal(AethSyndrome.rnrNak(1), 0x21, "(the syndrome an RNR NAK with code 1 carries)");
  t.end();
});
