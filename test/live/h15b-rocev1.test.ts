// Live: RoCEv1 at layer 2 on a lab of its own (h15bx), docs/examples/rocev1-write.yaml. h1 -> h2 is
// bridged by leaf1 and completes; h3 -> h5 (another leaf) never arrives: the frames carry no IP header,
// so leaf1 has nothing to route them by. The capture of h2's port holds RoCEv1 frames tshark decodes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import type { Report } from "../../src/report/report.js";
import { requireRoot, rl } from "../helpers/live.js";

requireRoot(t);

const LAB = "h15bx";
// The PCP must survive the kernel: it takes a received frame's 802.1Q tag out of the frame into the
// packet ring's header, and the ring backend (native/src/packet.c) puts it back; queue 3 below shows it.

t.test("RoCEv1 across a bridge domain, and not across a router, on a live lab", async (t) => {
  const out = join(t.testdir({}), "out");
  const r = await rl(
    [
      "run",
      "docs/examples/rocev1-write.yaml",
      "--runtime",
      "live",
      "--name",
      LAB,
      "--capture",
      "h2:eth1",
      "--out",
      out,
    ],
    180_000,
  );
  t.equal(r.exitCode, 0, r.stderr);
  const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Report;
  const c = (d: string, n: string) => report.devices[d]!.counters[n] ?? 0;
  const done = report.flows.filter((f) => f.endNs !== null);
  t.equal(report.summary.flowsCompleted, 1, "one of the two WRITEs completes");
  t.ok(
    done.every((f) => f.workload === "bridged" && f.src === "h1" && f.dst === "h2"),
    "the bridged one",
  );
  t.equal(c("h2", "payload_mismatch"), 0, "every byte as sent");
  // Until h2 has sent a frame (its first ACK) leaf1 has not learnt its MAC and floods what goes to it: how
  // many frames that is depends on when h2's NIC first spoke, so the test counts both.
  const bridged = c("leaf1", "bridge_frames");
  const flooded = c("leaf1", "bridge_flooded");
  t.ok(
    bridged > 0 && bridged + flooded > 250,
    `leaf1 bridged it (${bridged} frames to a learnt port, ${flooded} flooded)`,
  );
  const q3 = report.devices.leaf1!.ports!.eth4!.queues?.["3"]?.tx_packets ?? 0;
  t.ok(q3 >= 245, `the PCP 3 frames left towards h2 on queue 3 (${q3})`);
  t.equal(c("h5", "rx_write_requests"), 0, "h5 never saw the other");
  t.ok(c("leaf1", "rx_not_for_us") > 0, "leaf1 could not route it");
  const tshark = await execa("tshark", [
    "-r",
    join(out, "capture-h2-eth1.pcap"),
    "-Y",
    "vlan.etype == 0x8915 && vlan.id == 100",
    "-T",
    "fields",
    "-e",
    "frame.protocols",
  ]);
  const v1 = tshark.stdout.split("\n").filter((l) => l.includes("infiniband"));
  t.ok(v1.length >= 256, `tshark decodes ${v1.length} RoCEv1 frames on h2's port`);
  const ns = await execa("ip", ["netns", "list"]);
  t.notMatch(ns.stdout, new RegExp(`rl-${LAB}-`), "the lab is gone");
});
