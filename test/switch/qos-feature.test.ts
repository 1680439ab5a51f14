import t from "tap";
import { ipv4Dscp } from "../../src/wire/ipv4.js";
import { peerIp, SwitchHarness } from "./harness.js";

/** DSCP 10 -> priority 1 (queue 1); DSCP 0 -> queue 0. */
const dscp10 = { qos: { dscpToPriority: { "10": 1 } } };

/** Five packets each of DSCP 0 and DSCP 10 arrive together; the order they leave in. */
function order(h: SwitchHarness): number[] {
  const before = h.data(2).length;
  for (let i = 0; i < 5; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 0, bytes: 4000 }));
  for (let i = 0; i < 5; i++) h.deliver(1, h.udp(1, peerIp(2), { dscp: 10, bytes: 4000 }));
  h.run(h.now + 100_000);
  return h
    .data(2)
    .slice(before)
    .map((s) => ipv4Dscp(s.frame, 14));
}

t.test("DWRR alternates equal-weight queues; a run-time configure makes one strict", (t) => {
  const h = new SwitchHarness({ settings: dscp10 }).start();
  t.same(order(h), [0, 10, 0, 10, 0, 10, 0, 10, 0, 10], "equal weights, one frame each per round");
  const qos = { ...h.sw.config.qos, strictQueues: [1, 6, 7] };
  t.same(h.command({ type: "configure", tunables: { qos } }), { ok: true });
  t.same(
    order(h),
    [0, 10, 10, 10, 10, 10, 0, 0, 0, 0],
    "queue 1 first (after the frame already on the wire)",
  );
  t.end();
});

t.test("DWRR weights share the port", (t) => {
  const h = new SwitchHarness({
    settings: { ...dscp10, qos: { ...dscp10.qos, dwrrWeights: [1, 3, 1, 1, 1, 1, 1, 1] } },
  });
  h.start();
  t.same(order(h).slice(0, 5), [0, 10, 10, 10, 0], "three frames of queue 1 per frame of queue 0");
  t.end();
});

t.test("a remapped priority pauses the queue it now maps to", (t) => {
  const h = new SwitchHarness().start();
  h.deliver(2, h.pfcFrame(2, 3, 0xffff));
  const paused = () =>
    h.sw
      .stats(h.now)
      .ports.find((p) => p.port === 2)!
      .queues!.filter((q) => q.paused)
      .map((q) => q.queue);
  t.same(paused(), [3]);
  const qos = { ...h.sw.config.qos, priorityToQueue: [0, 1, 2, 5, 4, 5, 6, 7] };
  h.command({ type: "configure", tunables: { qos } });
  t.same(paused(), [5], "priority 3 now stops queue 5");
  t.end();
});
