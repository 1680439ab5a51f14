// `rocelab capture NODE:ethN`: tcpdump on a lab port. In a local lab the CLI runs it inside the node's
// namespace; on an attached lab (docs/attach.md) the device runs it in its own namespace, wherever that is,
// and the attachment writes the pcap the device streams over its control channel. Either way the file is
// created by rocelab, new and never through a link (safe-files.ts); tcpdump writes the pcap to its stdout,
// which is that file: it never opens a path as root (and never chowns one to its own user).

import { closeSync } from "node:fs";
import { resolve } from "node:path";
import { execa } from "execa";
import { descriptor, tcpdumpToStdout } from "../lab/live/capture.js";
import type { LiveLab } from "../lab/live/live-lab.js";
import { nsName } from "../lab/live/names.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { openNewFile } from "../runtime/realtime/safe-files.js";
import { UsageError } from "./errors.js";

export interface CaptureFile {
  readonly path: string;
  /** Replace an existing file (--force). */
  readonly force: boolean;
  /** File mode (--mode; default 0600). */
  readonly mode: number;
}

/** Captures `node:eth<port>` into `file` for `seconds` of real time, however the lab reaches the node. */
export async function captureOn(
  lab: LiveLab,
  node: string,
  port: number,
  file: CaptureFile,
  seconds: number,
): Promise<{ packets: number }> {
  const status = await lab.request<LabStatus>("status");
  if (status.attached === undefined) return captureFrames(lab.name, node, port, file, seconds);
  const r = await lab.request<{ frames: number }>(
    "capture",
    { node, port, seconds, file: resolve(file.path), force: file.force, mode: file.mode },
    (seconds + 30) * 1000,
  );
  return { packets: r.frames };
}

/** tcpdump inside the node's namespace for `seconds` of real time, into the file rocelab opened. */
async function captureFrames(
  lab: string,
  node: string,
  port: number,
  file: CaptureFile,
  seconds: number,
): Promise<{ packets: number }> {
  const fd = openNewFile(file.path, { force: file.force, mode: file.mode, flag: "-w" });
  let r: Awaited<ReturnType<typeof run>>;
  try {
    r = await run(nsName(lab, node), `eth${port}`, fd, seconds);
  } finally {
    closeSync(fd);
  }
  const m = /(\d+) packets? captured/.exec(r.stderr);
  if (!m) throw new UsageError(`tcpdump failed: ${r.stderr.trim().split("\n").pop()}`, 1);
  return { packets: Number(m[1]) };
}

function run(namespace: string, ifname: string, fd: number, seconds: number) {
  return execa("ip", ["netns", "exec", namespace, "tcpdump", ...tcpdumpToStdout(ifname)], {
    reject: false,
    stdout: descriptor(fd),
    timeout: seconds * 1000,
    killSignal: "SIGINT",
  });
}
