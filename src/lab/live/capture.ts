// `rocelab run --runtime live --capture NODE:ethN,…`: tcpdump in each node's namespace for the length of
// the run, one pcap per port (the same file names as the simulator's, lab/capture.ts). Timestamps are the
// kernel's wall clock, in nanoseconds; the frames are what crossed the veth.

import { execa, type ResultPromise } from "execa";
import { type CaptureEndpoint, captureFile } from "../capture.js";
import { nsName } from "./names.js";

export interface LiveCapture {
  /** Stops every tcpdump (SIGINT: it flushes its file) and says how many frames each captured. */
  stop(): Promise<{ file: string; frames: number }[]>;
}

const STARTED = /listening on/;

/** Starts tcpdump on every endpoint and resolves once each is listening. */
export async function startLiveCapture(
  lab: string,
  endpoints: readonly CaptureEndpoint[],
  dir: string,
): Promise<LiveCapture> {
  const running: { file: string; proc: ResultPromise<{ reject: false; buffer: true }> }[] = [];
  for (const e of endpoints) {
    const file = captureFile(dir, e);
    const proc = execa(
      "ip",
      [
        "netns",
        "exec",
        nsName(lab, e.node),
        "tcpdump",
        "-i",
        `eth${e.port}`,
        "-w",
        file,
        "-U",
        "-s",
        "65535",
        "-n",
        "--time-stamp-precision=nano",
      ],
      { reject: false, buffer: true },
    );
    running.push({ file, proc });
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
