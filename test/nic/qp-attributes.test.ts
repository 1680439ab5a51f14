// A QP's own attributes (the create-qp command's `transport`, a workload's QP attributes) over the NIC's
// transport settings: checked like the host section, kept across a host reconfiguration that changes the
// rest, and used by that QP only.

import t from "tap";
import { connect, flowsOf, IP_B, must, pair, qpStats, runUntil } from "./support/pair.js";

t.test("create-qp with transport: checked, applied to that QP only, kept over host changes", (t) => {
  const p = pair();
  const bad = p.a.command(
    { type: "create-qp", qpn: 9, remoteQpn: 1009, remoteIp: IP_B, transport: { retryCnt: 8 } as never },
    0,
  );
  t.notOk(bad.ok, "retryCnt 8 refused");
  t.match(bad.ok ? "" : bad.error, /transport\.retryCnt/, "the message names the attribute");
  const unknown = p.a.command(
    { type: "create-qp", qpn: 9, remoteQpn: 1009, remoteIp: IP_B, transport: { ackReqEvery: 2 } as never },
    0,
  );
  t.notOk(unknown.ok, "a host-only setting is not a QP attribute");

  must(p.a, { type: "create-qp", qpn: 1, remoteQpn: 1001, remoteIp: IP_B });
  must(p.a, {
    type: "create-qp",
    qpn: 2,
    remoteQpn: 1002,
    remoteIp: IP_B,
    transport: { timeout: 10, retryCnt: 2, minRnrTimer: 1, recvDepth: 4 },
  });
  const plain = p.a.qp(1)!.settings;
  const own = p.a.qp(2)!.settings;
  t.same([plain.rtoNs, plain.retryCnt, plain.minRnrTimer, plain.recvDepth], [4_000_000, 7, 12, null]);
  t.same(
    [own.rtoNs, own.retryCnt, own.minRnrTimer, own.recvDepth],
    [4096 * 2 ** 10, 2, 1, 4],
    "timeout 10 derives 4.19 ms; the rest as given",
  );
  t.not(own, plain, "its own settings object");

  must(
    p.a,
    { type: "configure", settings: { transport: { rto: 1_000_000, rnrRetry: 3, ackReqEvery: 4 } } },
    10,
  );
  t.same([plain.rtoNs, plain.rnrRetry, plain.ackReqEvery], [1_000_000, 3, 4], "the host change reaches QP 1");
  t.same(
    [own.rtoNs, own.retryCnt, own.rnrRetry, own.ackReqEvery],
    [4096 * 2 ** 10, 2, 3, 4],
    "QP 2 keeps its own attributes and takes the host's others",
  );
  t.end();
});

t.test("sq_psn and rq_psn, as ibv_query_qp reports them: the next PSN each side sends and expects", (t) => {
  const p = pair();
  const base = 0xff_fffa; // 6 below the 24-bit wrap: the PSNs wrap during the 10-packet message
  connect(p, 1, { psnA: base, psnB: 77 });
  const before = qpStats(p.a, 1, 0);
  t.same([before.sqPsn, before.rqPsn], [base, 77], "fresh: each side's initial PSN, and the peer's");
  t.equal(qpStats(p.b, 1001, 0).rqPsn, base, "B expects A's initial PSN");
  must(p.a, { type: "post", qpn: 1, op: "write", bytes: 40 * 1024, flowId: "w" });
  const end = runUntil(p.sim, () => flowsOf(p.a).length === 1, 10_000_000);
  const sq = qpStats(p.a, 1, end).sqPsn;
  t.ok(sq < base, `sq_psn wrapped to ${sq}`);
  const packets = (sq - base) & 0xff_ffff;
  t.equal(packets, 10, "40 KB at the 4096-byte MTU: 10 packets");
  t.equal(qpStats(p.b, 1001, end).rqPsn, qpStats(p.a, 1, end).sqPsn, "B expects what A sends next");
  t.equal(qpStats(p.a, 1, end).rqPsn, 77, "A's responder saw no request");
  t.end();
});
