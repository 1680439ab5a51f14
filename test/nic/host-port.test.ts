// The NIC's host-stack port (used by the live lab): frames that are not RoCE for this NIC go up to the
// host's kernel on port 2; what the kernel sends leaves on the wire, paced and paused like the NIC's own.
import t from "tap";
import type { Device, DeviceEnv, DeviceStats, Nanoseconds } from "../../src/device/contract.js";
import { ArpOp, buildArpFrame } from "../../src/wire/arp.js";
import { buildPfcFrame } from "../../src/wire/pfc.js";
import { udpFrame } from "../helpers/frames.js";
import { connect, IP_A, IP_B, MAC_A, MAC_B, must, pair, qpStats } from "./support/pair.js";

class Kernel implements Device<Uint8Array, void> {
  readonly got: Uint8Array[] = [];
  constructor(
    readonly name: string,
    private readonly env: DeviceEnv,
  ) {}
  start(): void {}
  receive(_port: number, frame: Uint8Array): void {
    this.got.push(frame);
  }
  fire(): void {}
  setLinkState(): void {}
  command(frame: Uint8Array): void {
    this.env.transmit(1, frame);
  }
  stats(now: Nanoseconds): DeviceStats {
    return { kind: "nic", name: this.name, now, counters: {}, ports: [] };
  }
}

function setup() {
  const p = pair({ a: { hostPort: true, answerArp: false }, middlebox: true });
  const kernel = p.sim.addDevice("kernel-a", (env) => new Kernel("kernel-a", env));
  p.sim.connect({ a: { device: "a", port: 2 }, b: { device: "kernel-a", port: 1 }, delayNs: 0 });
  connect(p, 1);
  return { ...p, kernel };
}

t.test("non-RoCE frames go up to the kernel, RoCE stays in the NIC", (t) => {
  const { sim, a, b, kernel } = setup();
  const arp = buildArpFrame({
    op: ArpOp.Request,
    senderMac: MAC_B,
    senderIp: IP_B,
    targetMac: 0,
    targetIp: IP_A,
  });
  const ping = udpFrame({
    srcMac: MAC_B,
    dstMac: MAC_A,
    srcIp: IP_B,
    dstIp: IP_A,
    srcPort: 5000,
    dstPort: 5001,
    payloadLength: 100,
  });
  sim.at(1000, (now) =>
    must(b, { type: "post", qpn: 1001, op: "write", bytes: 64 * 1024, flowId: "w" }, now),
  );
  // Inject the two frames on the wire towards A through the middlebox's port 2 (B's side).
  sim.at(2000, () => {
    const box = sim.device("box");
    box.receive(2, arp, 2000);
    box.receive(2, ping, 2000);
  });
  sim.run(1_000_000);
  t.equal(kernel.got.length, 2, "ARP request and UDP datagram reached the kernel");
  t.equal(kernel.got[0]![12], 0x08);
  t.equal(kernel.got[0]![13], 0x06, "the ARP request first");
  t.ok(
    qpStats(a, 1, sim.now).bytesDelivered === 64 * 1024,
    "the RDMA WRITE was delivered by the NIC, not the kernel",
  );
  t.equal(a.stats(sim.now).ports[0]!.counters.host_rx_frames, 2);
  t.end();
});

t.test("the kernel's frames go out on the wire and respect PFC on their priority", (t) => {
  const { sim, a, kernel, box } = setup();
  const seenFromA: Uint8Array[] = [];
  box!.dropIf = (frame, from) => {
    if (from === 1) seenFromA.push(frame);
    return false;
  };
  const frame = (dscp: number) =>
    udpFrame({
      srcMac: MAC_A,
      dstMac: MAC_B,
      srcIp: IP_A,
      dstIp: IP_B,
      srcPort: 5000,
      dstPort: 5001,
      payloadLength: 200,
      dscp,
    });
  // Pause priority 0 (where DSCP 0 lives) at A for a long time, then send a DSCP 0 and a DSCP 26 frame.
  sim.at(1000, (now) =>
    a.receive(
      1,
      buildPfcFrame({ src: MAC_B, quanta: [0xffff, null, null, null, null, null, null, null] }),
      now,
    ),
  );
  sim.at(2000, () => {
    kernel.command(frame(0));
    kernel.command(frame(26));
  });
  sim.run(100_000);
  const udp = seenFromA.filter((f) => f.length > 34 && f[23] === 17 && f[36] === 0x13);
  t.equal(udp.length, 1, "only the frame of the unpaused priority left");
  t.equal(udp[0]![15]! >>> 2, 26, "it is the DSCP 26 frame");
  sim.at(200_000, (now) =>
    a.receive(1, buildPfcFrame({ src: MAC_B, quanta: [0, null, null, null, null, null, null, null] }), now),
  );
  sim.run(400_000);
  t.equal(
    seenFromA.filter((f) => f.length > 34 && f[23] === 17 && f[36] === 0x13).length,
    2,
    "the paused one follows the resume",
  );
  t.equal(a.stats(sim.now).ports[0]!.counters.host_tx_frames, 2);
  t.end();
});
