// Path trace of one RoCE 5-tuple through the fabric, from inside a host namespace, with raw sockets:
//   node trace-tool.js --lab L --src IP --dst IP --sport P [--max-hops N] [--timeout-ms T]
// Each probe is a real RoCEv2 packet (SEND ONLY to a QP nobody owns, valid ICRC) to UDP 4791 with the
// given source port, so every switch hashes it exactly like that flow's data; its TTL counts up from 1 and
// the userspace switches answer with ICMP time exceeded from the port it came in on. Prints JSON.
//
// raw-socket traps (measured here; see raw(7)): a raw IPPROTO_UDP socket also receives every UDP packet and
// starves its sends, so probes go out on an IPPROTO_RAW socket (we write the IP header); and sockets are
// kept referenced, or GC closes them silently.

import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { parseIp } from "../wire/bytes.js";
import { ETHERNET_HEADER_LENGTH } from "../wire/ethernet.js";
import { IcmpType, parseIcmp } from "../wire/icmp.js";
import { Ecn, ipv4HeaderLength, setIpv4Ttl } from "../wire/ipv4.js";
import { buildRoceV2Frame, Opcode } from "../wire/roce.js";

interface RawSocket {
  send(buf: Buffer, offset: number, length: number, address: string, cb: (error?: Error) => void): void;
  on(event: "message", cb: (buf: Buffer, source: string) => void): void;
  on(event: "error", cb: (e: Error) => void): void;
  close(): void;
}
interface RawModule {
  createSocket(options: { protocol: number }): RawSocket;
}

const require = createRequire(import.meta.url);
const raw = require("raw-socket") as RawModule;

const { values } = parseArgs({
  options: {
    lab: { type: "string" },
    src: { type: "string" },
    dst: { type: "string" },
    sport: { type: "string", default: "49152" },
    "max-hops": { type: "string", default: "8" },
    "timeout-ms": { type: "string", default: "2000" },
  },
});
const src = parseIp(values.src ?? "");
const dst = parseIp(values.dst ?? "");
if (!values.lab || src === null || dst === null) {
  process.stderr.write(
    "usage: trace-tool --lab L --src IP --dst IP [--sport P --max-hops N --timeout-ms T]\n",
  );
  process.exit(2);
}
process.title = `rocelab-${values.lab}-trace`;
const sport = Number(values.sport);
const maxHops = Number(values["max-hops"]);
const timeoutMs = Number(values["timeout-ms"]);

const IPPROTO_RAW = 255;
const sender = raw.createSocket({ protocol: IPPROTO_RAW });
const icmp = raw.createSocket({ protocol: 1 });

interface Hop {
  readonly ttl: number;
  readonly from: string | null;
  readonly rttMs: number | null;
}

const waiting = new Map<number, (from: string) => void>();
icmp.on("message", (buf) => {
  // Raw ICMP sockets deliver the IP header too.
  const ihl = ipv4HeaderLength(buf, 0);
  const msg = parseIcmp(buf, ihl, buf.length);
  if (!msg.ok || msg.value.type !== IcmpType.TimeExceeded) return;
  const quoted = buf.subarray(msg.value.dataOffset, msg.value.dataOffset + msg.value.dataLength);
  if (quoted.length < 28) return;
  const id = (quoted[4]! << 8) | quoted[5]!;
  const quotedSport = (quoted[ipv4HeaderLength(quoted, 0)]! << 8) | quoted[ipv4HeaderLength(quoted, 0) + 1]!;
  if (quotedSport !== sport) return;
  const from = `${buf[12]}.${buf[13]}.${buf[14]}.${buf[15]}`;
  waiting.get(id)?.(from);
});
icmp.on("error", () => {});
sender.on("error", () => {});

function probe(ttl: number): Promise<Hop> {
  const id = 0x5200 + ttl;
  const frame = buildRoceV2Frame({
    srcMac: 0,
    dstMac: 0,
    srcIp: src!,
    dstIp: dst!,
    dscp: 26,
    ecn: Ecn.Ect0,
    ttl,
    identification: id,
    udpSrcPort: sport,
    opcode: Opcode.SendOnly,
    destQp: 0xffffff,
    psn: ttl,
    ackReq: false,
    payload: new Uint8Array(16),
  });
  const packet = Buffer.from(frame.subarray(ETHERNET_HEADER_LENGTH));
  setIpv4Ttl(packet, 0, ttl);
  const sent = performance.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      resolve({ ttl, from: null, rttMs: null });
    }, timeoutMs);
    waiting.set(id, (from) => {
      clearTimeout(timer);
      waiting.delete(id);
      resolve({ ttl, from, rttMs: Math.round((performance.now() - sent) * 100) / 100 });
    });
    sender.send(packet, 0, packet.length, values.dst!, () => {});
  });
}

const hops: Hop[] = [];
for (let ttl = 1; ttl <= maxHops; ttl++) {
  const hop = await probe(ttl);
  hops.push(hop);
  // No answer: the probe reached the destination (RoCE NICs do not answer probes) or was lost.
  if (hop.from === null) break;
}
process.stdout.write(`${JSON.stringify({ sport, hops })}\n`);
sender.close();
icmp.close();
process.exit(0);
