// `--capture NODE:ethN[,NODE:ethN…]`: a pcap per port, in both runtimes. In the simulator a tap on the
// link (Simulator.onFrame) copies every frame the port sends, stamped when it leaves, and every frame it
// receives, stamped when it arrives (the link's propagation delay later); the file's timestamps are the
// scenario's emulated nanoseconds since 0 (nanosecond pcap, magic 0xa1b23c4d). The frames are the devices'
// real bytes. (Frames the simulator then loses to injected link loss are in the receiving side's file, as a
// tap on the wire would see them.) In the live runtime tcpdump runs in the node's namespace (live/capture.ts).

import { join } from "node:path";
import type { OutputDir } from "../runtime/realtime/safe-files.js";
import type { Simulator } from "../runtime/sim/simulator.js";
import type { Topology } from "../scenario/topology.js";
import { pcapHeader, pcapRecord } from "../wire/pcap.js";

export interface CaptureEndpoint {
  readonly node: string;
  readonly port: number;
}

/** `--capture` names a port that is not there. */
export class CaptureSpecError extends Error {
  override readonly name = "CaptureSpecError";
}

/** Parses `leaf1:eth1,h1:eth1` against a topology; names what is wrong. */
export function parseCaptureList(text: string, topo: Topology): CaptureEndpoint[] {
  const out: CaptureEndpoint[] = [];
  for (const part of text.split(",")) {
    const m = /^([^:\s]+):eth(\d+)$/.exec(part.trim());
    if (!m) throw new CaptureSpecError(`--capture takes NODE:ethN[,NODE:ethN…], not "${part}"`);
    const node = m[1]!;
    const port = Number(m[2]);
    if (!topo.nodes.some((n) => n.name === node)) {
      throw new CaptureSpecError(`--capture: ${node} is not a node of topology ${topo.name}`);
    }
    const linked = topo.links.some(
      (l) => (l.a.node === node && l.a.port === port) || (l.b.node === node && l.b.port === port),
    );
    if (!linked) throw new CaptureSpecError(`--capture: ${node}:eth${port} has no link`);
    if (!out.some((e) => e.node === node && e.port === port)) out.push({ node, port });
  }
  return out;
}

/** The name of the file a port's capture goes to. */
export function captureFileName(e: CaptureEndpoint): string {
  return `capture-${e.node}-eth${e.port}.pcap`;
}

/** The file a port's capture goes to in `dir`. */
export function captureFile(dir: string, e: CaptureEndpoint): string {
  return join(dir, captureFileName(e));
}

const FORMAT = { nanosecond: true } as const;

interface Stamped {
  readonly t: number;
  readonly frame: Uint8Array;
}

/** One port's frames, in two time-ordered lists merged when written. */
class PortCapture {
  readonly sent: Stamped[] = [];
  readonly received: Stamped[] = [];

  constructor(readonly endpoint: CaptureEndpoint) {}

  bytes(): Uint8Array {
    const parts: Uint8Array[] = [pcapHeader(FORMAT)];
    let i = 0;
    let j = 0;
    while (i < this.sent.length || j < this.received.length) {
      const a = this.sent[i];
      const b = this.received[j];
      const next = b === undefined || (a !== undefined && a.t <= b.t) ? this.sent[i++]! : this.received[j++]!;
      parts.push(pcapRecord(next.frame, next.t, FORMAT));
    }
    return Buffer.concat(parts);
  }

  get frames(): number {
    return this.sent.length + this.received.length;
  }
}

/** Taps the simulator for the given ports; `write` puts one pcap per port into a directory. */
export class SimCapture {
  private readonly ports: PortCapture[];

  constructor(sim: Simulator, endpoints: readonly CaptureEndpoint[]) {
    this.ports = endpoints.map((e) => new PortCapture(e));
    const byKey = new Map<string, PortCapture>();
    for (const p of this.ports) byKey.set(`${p.endpoint.node}:${p.endpoint.port}`, p);
    if (byKey.size === 0) return;
    sim.onFrame((t, from, to, frame) => {
      const tx = byKey.get(`${from.device}:${from.port}`);
      const rx = byKey.get(`${to.device}:${to.port}`);
      if (tx === undefined && rx === undefined) return;
      // Devices rewrite frames in place as they forward them: keep a copy of the bytes on this wire.
      // A capture starts at the run's time 0, as a live one does: the bring-up's frames are not in it.
      const delay = rx === undefined ? 0 : (sim.linkAt(to.device, to.port)?.spec.delayNs ?? 0);
      if (t + delay < 0) return;
      const copy = frame.slice();
      if (t >= 0) tx?.sent.push({ t, frame: copy });
      rx?.received.push({ t: t + delay, frame: copy });
    });
  }

  /** Writes every port's file; returns the files and how many frames each holds. */
  write(dir: OutputDir): { file: string; frames: number }[] {
    return this.ports.map((p) => ({
      file: dir.write(captureFileName(p.endpoint), p.bytes()),
      frames: p.frames,
    }));
  }
}
