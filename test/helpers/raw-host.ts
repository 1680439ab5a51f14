// A minimal host for switch tests: answers ARP for its address, records every frame it receives, and
// sends whatever frames the test hands it (at line rate, through a real TxPort). Not an RDMA NIC: the
// switch tests need precise control over the bytes a host sends.

import type { Device, DeviceEnv, Nanoseconds } from "../../src/device/contract.js";
import { Fifo } from "../../src/device/fifo.js";
import { TxPort } from "../../src/device/tx-port.js";
import { Histogram } from "../../src/nic/histogram.js";
import type { NicStats } from "../../src/nic/stats-types.js";
import type { PortAddress } from "../../src/scenario/address-plan.js";
import { ArpOp, buildArpFrame, parseArp } from "../../src/wire/arp.js";
import { EtherType, ethPayloadOffset, ethType } from "../../src/wire/ethernet.js";
import { parsePfcFrame, quantaToNs } from "../../src/wire/pfc.js";

export interface Received {
  readonly t: Nanoseconds;
  readonly frame: Uint8Array;
}

const NO_BUFFER = { bytes: 0, peakBytes: 0, xoff: false } as const;

export class RawHost implements Device<{ send: Uint8Array[] }, void> {
  readonly received: Received[] = [];
  readonly tx: TxPort;
  private readonly out = new Fifo<Uint8Array>();
  /** Pause honoured per priority: paused until (ns). */
  readonly pausedUntil = new Float64Array(8);
  pauseFrames = 0;
  /** Priority of every frame this host sends (for PFC). */
  priority = 0;
  /** Answer ARP requests for our address (false: a host that is not listening yet). */
  answerArp = true;
  /** ARP requests for our address that arrived (answered or not). */
  arpRequests = 0;

  constructor(
    readonly name: string,
    readonly address: PortAddress,
    rateBps: number,
    private readonly env: DeviceEnv,
    /** Obey received PFC for `priority` (default true). */
    private readonly honourPfc = true,
  ) {
    this.tx = new TxPort(1, rateBps, 1, env, (now) => this.pull(now));
  }

  start(): void {}

  receive(_port: number, frame: Uint8Array, now: Nanoseconds): void {
    const type = ethType(frame);
    if (type === EtherType.MacControl) {
      const p = parsePfcFrame(frame);
      if (p.ok && p.value.control.kind === "pfc") {
        this.pauseFrames++;
        const c = p.value.control;
        for (let prio = 0; prio < 8; prio++) {
          if ((c.enableVector >> prio) & 1)
            this.pausedUntil[prio] = now + quantaToNs(c.quanta[prio]!, this.tx.rateBps);
        }
        if (this.honourPfc) this.env.arm(2, Math.ceil(this.pausedUntil[this.priority]!));
      }
      this.received.push({ t: now, frame });
      return;
    }
    if (type === EtherType.ARP) {
      const arp = parseArp(frame, ethPayloadOffset(frame));
      const forUs = arp.ok && arp.value.op === ArpOp.Request && arp.value.targetIp === this.address.ip;
      if (forUs) this.arpRequests++;
      if (forUs && this.answerArp && arp.ok) {
        this.out.push(
          buildArpFrame({
            op: ArpOp.Reply,
            senderMac: this.address.mac,
            senderIp: this.address.ip,
            targetMac: arp.value.senderMac,
            targetIp: arp.value.senderIp,
          }),
        );
        this.tx.kick(now);
      }
      return;
    }
    this.received.push({ t: now, frame });
  }

  fire(timer: number, now: Nanoseconds): void {
    if (timer === 1) this.tx.onTimer(now);
    else this.tx.kick(now);
  }

  setLinkState(_port: number, up: boolean, now: Nanoseconds): void {
    this.tx.setUp(up, now);
  }

  command(cmd: { send: Uint8Array[] }, now: Nanoseconds): void {
    for (const f of cmd.send) this.out.push(f);
    this.tx.kick(now);
  }

  private pull(now: Nanoseconds): Uint8Array | null {
    // ARP replies and other control frames are never held; data honours PFC.
    const head = this.out.peek();
    if (head === undefined) return null;
    if (this.honourPfc && ethType(head) === EtherType.IPv4 && this.pausedUntil[this.priority]! > now)
      return null;
    return this.out.shift()!;
  }

  /** Reports as a NIC without QPs, so a lab can hold it where a NIC would be. */
  stats(now: Nanoseconds): NicStats {
    const detail = { qps: [], flows: [], latency: new Histogram().snapshot(), rxBuffer: NO_BUFFER };
    return {
      kind: "nic",
      name: this.name,
      now,
      counters: { received: this.received.length },
      ports: [],
      detail,
    };
  }
}
