// The flows view's summary counts senders that still have work, not every QP that ever sent.
import t from "tap";
import { flowsLines } from "../../src/tui/components/FlowsView.js";
import type { QpRow } from "../../src/tui/derive.js";
import type { DashboardState } from "../../src/tui/store.js";

const qp = (host: string, role: QpRow["role"], pending: number, inflight: number): QpRow => ({
  key: `${host}-${role}`,
  host,
  qpn: 256,
  peer: "h8",
  role,
  rateBps: 89e6,
  targetRateBps: 100e9,
  alpha: 0.1,
  windowBytes: 0,
  rttNs: 0,
  utilisation: 0,
  goodputBps: 0,
  bytes: 4_000_000,
  cnpHandled: 1,
  cnpSent: 0,
  ecnMarked: 0,
  retransmits: 0,
  pending,
  inflight,
  paused: false,
  state: "rts",
});

t.test("finished senders are counted as done, not sending", (t) => {
  const state = {
    qps: [qp("h1", "tx", 0, 0), qp("h2", "tx", 0, 0), qp("h3", "tx", 1, 3), qp("h8", "rx", 0, 0)],
    topology: { nodes: [], links: [] },
    history: { rate: new Map(), goodput: new Map() },
  } as unknown as DashboardState;
  const text = flowsLines(state, 0, 100, 20, { colour: false })
    .lines.map((l) => l.map((s) => s.text).join(""))
    .join("\n");
  t.match(text, /4 QPs: 1 sending, 2 done, 1 receiving/);
  t.match(text, /h1\s+256\s+→h8.*done/);
  t.end();
});
