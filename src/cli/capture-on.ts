// `rocelab capture NODE:ethN`: tcpdump on a lab port. In a local lab the CLI runs it inside the node's
// namespace; on an attached lab (docs/attach.md) the device runs it in its own namespace, wherever that is,
// and the attachment writes the pcap the device streams over its control channel.

import { resolve } from "node:path";
import { execa } from "execa";
import type { LiveLab } from "../lab/live/live-lab.js";
import { nsName } from "../lab/live/names.js";
import type { LabStatus } from "../lab/live/supervisor.js";
import { UsageError } from "./errors.js";

/** Captures `node:eth<port>` into `file` for `seconds` of real time, however the lab reaches the node. */
export async function captureOn(
  lab: LiveLab,
  node: string,
  port: number,
  file: string,
  seconds: number,
): Promise<{ packets: number }> {
  const status = await lab.request<LabStatus>("status");
  if (status.attached === undefined) return captureFrames(lab.name, node, port, file, seconds);
  const r = await lab.request<{ frames: number }>(
    "capture",
    { node, port, seconds, file: resolve(file) },
    (seconds + 30) * 1000,
  );
  return { packets: r.frames };
}

/** tcpdump inside the node's namespace for `seconds` of real time. */
async function captureFrames(
  lab: string,
  node: string,
  port: number,
  file: string,
  seconds: number,
): Promise<{ packets: number }> {
  const r = await execa(
    "ip",
    [
      "netns",
      "exec",
      nsName(lab, node),
      "tcpdump",
      "-i",
      `eth${port}`,
      "-w",
      file,
      "-U",
      "-s",
      "65535",
      "-n",
    ],
    { reject: false, timeout: seconds * 1000, killSignal: "SIGINT" },
  );
  const m = /(\d+) packets? captured/.exec(r.stderr);
  if (!m) throw new UsageError(`tcpdump failed: ${r.stderr.trim().split("\n").pop()}`, 1);
  return { packets: Number(m[1]) };
}
