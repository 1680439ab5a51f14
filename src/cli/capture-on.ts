// `rocelab capture NODE:ethN`: tcpdump on a lab port, written as pcapng with the frames' emulated
// timestamps (the device records when each frame left or arrived on the emulated wire; capture-times.ts
// puts those times on the captured frames), or with `--time real` the kernel's. In a local lab the CLI
// runs tcpdump inside the node's namespace; on an attached lab (docs/attach.md) the device runs it in its
// own namespace, wherever that is, and the attachment writes the pcap the device streams over its control
// channel (real time only). Either way the file is created by rocelab, new and never through a link
// (safe-files.ts); tcpdump writes to its stdout: it never opens a path as root.

import { closeSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { execa } from "execa";
import { tcpdumpToStdout } from "../lab/live/capture.js";
import { emulatedPcapng, realPcapng } from "../lab/live/capture-times.js";
import { withFrameTimes } from "../lab/live/frame-times.js";
import type { LiveLab } from "../lab/live/live-lab.js";
import { nsName } from "../lab/live/names.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { openNewFile } from "../runtime/realtime/safe-files.js";
import { type PcapFile, parsePcap } from "../wire/pcap.js";
import { UsageError } from "./errors.js";

export interface CaptureFile {
  readonly path: string;
  /** Replace an existing file (--force). */
  readonly force: boolean;
  /** File mode (--mode; default 0600). */
  readonly mode: number;
}

/** Which clock stamps the captured frames. */
export const CaptureTime = { Emulated: "emulated", Real: "real" } as const;
export type CaptureTime = (typeof CaptureTime)[keyof typeof CaptureTime];

export interface CaptureResult {
  readonly packets: number;
  readonly format: "pcap" | "pcapng";
  /** What the file's timestamps are, in a sentence (also the pcapng's comment). */
  readonly timestamps: string;
}

/** Captures `node:eth<port>` for `seconds` of real time, however the lab reaches the node. */
export async function captureOn(
  lab: LiveLab,
  node: string,
  port: number,
  file: CaptureFile,
  seconds: number,
  time: CaptureTime = CaptureTime.Emulated,
): Promise<CaptureResult> {
  const status = await lab.request<LabStatus>("status");
  if (status.attached !== undefined) {
    const r = await lab.request<{ frames: number }>(
      "capture",
      { node, port, seconds, file: resolve(file.path), force: file.force, mode: file.mode },
      (seconds + 30) * 1000,
    );
    return {
      packets: r.frames,
      format: "pcap",
      timestamps:
        "real: the kernel's wall clock (pcap; an attached lab's capture is not converted to emulated time)",
    };
  }
  const fd = openNewFile(file.path, { force: file.force, mode: file.mode, flag: "-w" });
  try {
    const capture = () => run(nsName(lab.name, node), `eth${port}`, seconds);
    const where = { lab: lab.name, node, port, dilation: status.dilation };
    if (time === CaptureTime.Real) {
      const pcap = parsed(await capture());
      const out = realPcapng(pcap, where);
      writeFileSync(fd, out.bytes);
      return { packets: pcap.records.length, format: "pcapng", timestamps: out.comment };
    }
    const r = await withFrameTimes(lab, node, port, capture);
    const out = emulatedPcapng(parsed(r.result), r.frames, r.truncated, where);
    writeFileSync(fd, out.bytes);
    return { packets: out.packets, format: "pcapng", timestamps: out.comment };
  } finally {
    closeSync(fd);
  }
}

/** tcpdump inside the node's namespace for `seconds` of real time; its pcap. */
async function run(namespace: string, ifname: string, seconds: number): Promise<Uint8Array> {
  const r = await execa("ip", ["netns", "exec", namespace, "tcpdump", ...tcpdumpToStdout(ifname)], {
    reject: false,
    encoding: "buffer",
    stdin: "ignore",
    timeout: seconds * 1000,
    killSignal: "SIGINT",
    maxBuffer: 1024 * 1024 * 1024,
  });
  const stderr = Buffer.from(r.stderr).toString();
  if (!/(\d+) packets? captured/.test(stderr))
    throw new UsageError(`tcpdump failed: ${stderr.trim().split("\n").pop()}`, 1);
  return r.stdout;
}

function parsed(bytes: Uint8Array): PcapFile {
  // Interrupted at the end of its time while still writing (a busy machine), tcpdump may stop inside its
  // last record: the file is read up to it, as Wireshark reads a capture "cut short in the middle of a packet".
  const p = parsePcap(bytes, { cutShort: true });
  if (!p.ok) throw new UsageError(`tcpdump wrote no readable pcap: ${p.error.message}`, 1);
  return p.value;
}
