// `rocelab run --runtime live --capture NODE:ethN,…`: tcpdump in each node's namespace for the length of
// the run, one pcap per port (the same file names as the simulator's, lab/capture.ts). Timestamps are the
// kernel's wall clock, in nanoseconds; the frames are what crossed the veth. rocelab creates each file
// itself (safe-files.ts: new, 0600, never through a link) and tcpdump writes the pcap to its stdout,
// which is that file: tcpdump never opens a path as root.

import { closeSync } from "node:fs";
import { execa, type ResultPromise } from "execa";
import type { OutputDir } from "../../runtime/realtime/safe-files.js";
import { type CaptureEndpoint, captureFileName } from "../capture.js";
import { nsName } from "./names.js";

export interface LiveCapture {
  /** Stops every tcpdump (SIGINT: it flushes its file) and says how many frames each captured. */
  stop(): Promise<{ file: string; frames: number }[]>;
}

const STARTED = /listening on/;

/**
 * tcpdump's arguments for a capture of `ifname` written to stdout (`-w -`). `--immediate-mode`: libpcap's
 * TPACKET_V3 ring otherwise hands frames over a block at a time, when a block fills or its timeout (about a
 * second) expires, and the SIGINT that ends a short run drops a block not yet handed over — a 0.4 s live run
 * on an idle machine captured 0 of its frames.
 */
export function tcpdumpToStdout(ifname: string, snaplen = 65535): string[] {
  return [
    "-i",
    ifname,
    "-w",
    "-",
    "-U",
    "--immediate-mode",
    "-s",
    String(snaplen),
    "-n",
    "--time-stamp-precision=nano",
  ];
}

/**
 * An open descriptor as execa's `stdout`: execa hands any descriptor number to the child unchanged (its
 * "native" stdio), though its types name only 3-9.
 */
export function descriptor(fd: number): 3 {
  return fd as 3;
}

/** Starts tcpdump on every endpoint and resolves once each is listening. */
export async function startLiveCapture(
  lab: string,
  endpoints: readonly CaptureEndpoint[],
  dir: OutputDir,
): Promise<LiveCapture> {
  const running: { file: string; proc: ResultPromise<{ reject: false; buffer: true; stdout: 3 }> }[] = [];
  for (const e of endpoints) {
    const name = captureFileName(e);
    const fd = dir.openNew(name);
    const proc = execa(
      "ip",
      ["netns", "exec", nsName(lab, e.node), "tcpdump", ...tcpdumpToStdout(`eth${e.port}`)],
      {
        reject: false,
        buffer: true,
        stdout: descriptor(fd),
      },
    );
    // The child has its own copy of the descriptor.
    closeSync(fd);
    running.push({ file: dir.file(name), proc });
    await new Promise<void>((resolve) => {
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
  return {
    async stop() {
      const out: { file: string; frames: number }[] = [];
      for (const r of running) {
        r.proc.kill("SIGINT");
        const result = await r.proc;
        const m = /(\d+) packets? captured/.exec(String(result.stderr));
        if (!m) throw new Error(`tcpdump failed on ${r.file}: ${String(result.stderr).trim()}`);
        out.push({ file: r.file, frames: Number(m[1]) });
      }
      return out;
    },
  };
}
