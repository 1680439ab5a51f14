import t from "tap";
import { formatStats, formatStatus } from "../../src/cli/lab-format.js";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import type { TopologyView } from "../../src/lab/lab.js";
import type { LabStatus } from "../../src/lab/live/supervisor.js";

const stats = (s: object) => s as unknown as AnyDeviceStats;

t.test("stats prints counters without float noise", (t) => {
  const out = formatStats(
    stats({
      name: "h1",
      kind: "nic",
      now: 1000,
      counters: { tx_busy_ns: 3147.360000000022, acks_sent: 3 },
      ports: [],
    }),
    false,
  );
  t.match(out, /tx_busy_ns\s+3147\.36$/m);
  t.notMatch(out, /0000000/);
  t.match(out, /acks_sent\s+3$/m);
  t.end();
});

t.test("stats prints no header without rows under it", (t) => {
  const out = formatStats(
    stats({
      name: "h1",
      kind: "nic",
      now: 1000,
      counters: { acks_sent: 3 },
      ports: [{ name: "eth1", up: true, counters: { rx_prio3_pause: 0, tx_prio3_pause: 0 } }],
    }),
    false,
  );
  t.notMatch(out, /priority pause counters/, "no pause rows, no pause header");
  const sw = formatStats(
    stats({
      name: "leaf1",
      kind: "switch",
      now: 1000,
      counters: {},
      ports: [
        { name: "eth1", up: true, counters: { rx_packets: 0 }, queues: [] },
        { name: "eth2", up: true, counters: { rx_packets: 5 }, queues: [] },
        { name: "eth3", up: false, counters: {}, queues: [] },
      ],
    }),
    false,
  );
  t.notMatch(sw, /^eth1:/m, "an idle port gets no header");
  t.match(sw, /^eth2:\n {2}rx_packets\s+5$/m);
  t.match(sw, /^eth3 \(DOWN\):/m, "a down port is news");
  t.end();
});

t.test("stats leaves out the -1 of settings that are not configured, also with --all", (t) => {
  const sw = stats({
    name: "leaf2",
    kind: "switch",
    now: 1000,
    counters: { ai_ecn_changes: 0 },
    ports: [
      {
        name: "eth1",
        up: true,
        counters: { rx_packets: 5 },
        queues: [
          { queue: 0, depthBytes: 0, paused: false, counters: { ecn_kmin_bytes: -1, ai_ecn_level: -1 } },
          {
            queue: 3,
            depthBytes: 0,
            paused: false,
            counters: { tx_packets: 4, ecn_kmin_bytes: 150000, ai_ecn_level: -1 },
          },
        ],
      },
    ],
  });
  for (const all of [false, true]) {
    const out = formatStats(sw, all);
    t.notMatch(out, /-1/, `no placeholder (all=${all})`);
    t.notMatch(out, /queue 0/, `a queue with only placeholders gets no row (all=${all})`);
    t.match(out, /queue 3: depth 0B {2}tx_packets=4 ecn_kmin_bytes=150000$/m);
  }
  t.match(formatStats(sw, true), /ai_ecn_changes\s+0$/m, "--all still shows zeros");
  t.end();
});

t.test("status lists each host's address", (t) => {
  const status = {
    lab: "x",
    status: "running",
    topology: "default",
    dilation: 1000,
    now: 0,
    clock: "synced",
    behindNs: 0,
    devices: [
      { node: "leaf1", kind: "switch", status: "running", pid: 1, restarts: 0 },
      { node: "h1", kind: "nic", status: "running", pid: 2, restarts: 0 },
    ],
    links: [],
  } as unknown as LabStatus;
  const topology: TopologyView = {
    name: "default",
    nodes: [
      { name: "leaf1", kind: "switch" as const, ports: [1] },
      { name: "h1", kind: "host" as const, ports: [1], ip: 0x0a010001 },
    ],
    links: [],
  };
  const out = formatStatus(status, topology);
  t.match(out, /^device\s+kind\s+address/m);
  t.match(out, /^h1\s+nic\s+10\.1\.0\.1\s+running/m);
  t.match(out, /^leaf1\s+switch\s+-\s+running/m);
  t.end();
});
