// `rocelab run --runtime live --capture NODE:ethN,…`: tcpdump in each node's namespace for the length of
// the run, each port's frames written as `capture-NODE-ethN.pcapng` with their emulated timestamps, as
// `rocelab capture` writes them (capture-times.ts: the device records when each frame left or arrived on
// the emulated wire; frame-times.ts matches those records to the captured frames), the file's comment
// saying so. rocelab creates each file itself before the run (safe-files.ts: new, 0600, never through a
// link) and writes it when the run ends; tcpdump writes its pcap to a pipe and never opens a path as root.

import { closeSync, writeFileSync } from "node:fs";
import { execa, type ResultPromise } from "execa";
import type { FrameTimes } from "../../runtime/realtime/frame-times.js";
import type { OutputDir } from "../../runtime/realtime/safe-files.js";
import { parsePcap } from "../../wire/pcap.js";
import type { CaptureEndpoint } from "../capture.js";
import { tcpdumpToStdout } from "./capture.js";
import { emulatedPcapng } from "./capture-times.js";
import { decodeFrameTimes } from "./frame-times.js";
import type { LiveLab } from "./live-lab.js";
import { nsName } from "./names.js";
import type { LabStatus } from "./supervisor.js";

export interface LiveCapture {
  /**
   * Stops every tcpdump (SIGINT: it flushes its pcap) and the devices' frame-time records, and writes each
   * port's pcapng; says how many frames each holds and what their timestamps are.
   */
  stop(): Promise<{ file: string; frames: number; timestamps: string }[]>;
}

/** The file a live run's capture of a port goes to: pcapng, with emulated timestamps. */
export function liveCaptureFileName(e: CaptureEndpoint): string {
  return `capture-${e.node}-eth${e.port}.pcapng`;
}

const STARTED = /listening on/;

type Tcpdump = ResultPromise<{ reject: false; encoding: "buffer"; maxBuffer: number }>;

/** Starts tcpdump and the frame-time record on every endpoint; resolves once each tcpdump is listening. */
export async function startLiveCapture(
  lab: LiveLab,
  endpoints: readonly CaptureEndpoint[],
  dir: OutputDir,
): Promise<LiveCapture> {
  const { dilation } = await lab.request<LabStatus>("status");
  const running: {
    endpoint: CaptureEndpoint;
    file: string;
    fd: number;
    proc: Tcpdump;
  }[] = [];
  const stopAll = async (): Promise<void> => {
    for (const r of running) {
      r.proc.kill("SIGINT");
      await r.proc;
      await lab.request("frame-times", { ...r.endpoint, on: false }).catch(() => undefined);
      closeSync(r.fd);
    }
  };
  try {
    for (const e of endpoints) {
      const name = liveCaptureFileName(e);
      const fd = dir.openNew(name);
      await lab.request("frame-times", { node: e.node, port: e.port, on: true });
      const proc = execa(
        "ip",
        ["netns", "exec", nsName(lab.name, e.node), "tcpdump", ...tcpdumpToStdout(`eth${e.port}`)],
        { reject: false, encoding: "buffer", maxBuffer: 1024 * 1024 * 1024 },
      );
      running.push({ endpoint: { node: e.node, port: e.port }, file: dir.file(name), fd, proc });
      await listening(proc);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    async stop() {
      // Every tcpdump and every record stops before any file is written, whatever goes wrong after.
      for (const r of running) r.proc.kill("SIGINT");
      const ended: { result: { stdout: Uint8Array; stderr: Uint8Array }; times: FrameTimes | null }[] = [];
      for (const r of running) {
        const result = await r.proc;
        const times = await lab
          .request<FrameTimes>("frame-times", { ...r.endpoint, on: false })
          .catch(() => null);
        ended.push({ result, times });
      }
      try {
        return running.map((r, i) => {
          const { result, times } = ended[i]!;
          const stderr = Buffer.from(result.stderr).toString();
          if (!/(\d+) packets? captured/.test(stderr))
            throw new Error(`tcpdump failed on ${r.file}: ${stderr.trim()}`);
          if (times === null) throw new Error(`${r.endpoint.node} gave no frame times for ${r.file}`);
          const pcap = parsePcap(result.stdout);
          if (!pcap.ok)
            throw new Error(`tcpdump wrote no readable pcap for ${r.file}: ${pcap.error.message}`);
          const where = { lab: lab.name, node: r.endpoint.node, port: r.endpoint.port, dilation };
          const file = emulatedPcapng(pcap.value, decodeFrameTimes(times.frames), times.truncated, where);
          writeFileSync(r.fd, file.bytes);
          return { file: r.file, frames: file.packets, timestamps: file.comment };
        });
      } finally {
        for (const r of running) closeSync(r.fd);
      }
    },
  };
}

/** Resolves once tcpdump says it is listening (or has ended). */
function listening(proc: Tcpdump): Promise<void> {
  return new Promise<void>((resolve) => {
    let seen = "";
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (STARTED.test(seen)) {
        proc.stderr?.off("data", onData);
        resolve();
      }
    };
    proc.stderr?.on("data", onData);
    void proc.then(() => resolve());
  });
}
