// `rocelab run --runtime live --capture NODE:ethN,…`: tcpdump in each node's namespace for the length of
// the run, one pcap per port with the same names, format and clock as the simulator's (lab/capture.ts):
// nanosecond pcap stamped in the scenario's emulated ns since its time 0. While tcpdump runs, each port's
// device records when every frame left or arrived on the emulated wire (frame-times); at the end those times
// replace the kernel's (capture-times.ts), so a live run's capture can be compared with the simulator's frame
// by frame. Frames the device did not time (the kernel's own on the veth) carry their kernel time scaled by
// the dilation; frames before the scenario's time 0 are left out; both are counted in the progress line.
// rocelab creates each file itself (safe-files.ts: new, 0600, never through a link); tcpdump writes its pcap
// to a pipe: it never opens a path as root.

import { execa, type ResultPromise } from "execa";
import type { FrameTimes } from "../../runtime/realtime/frame-times.js";
import type { OutputDir } from "../../runtime/realtime/safe-files.js";
import { parsePcap, pcapHeader, pcapRecord } from "../../wire/pcap.js";
import { type CaptureEndpoint, captureFileName } from "../capture.js";
import { stampEmulated } from "./capture-times.js";
import { decodeFrameTimes } from "./frame-times.js";
import type { LiveLab } from "./live-lab.js";
import { nsName } from "./names.js";

export interface LiveCapture {
  /** Stops every tcpdump (SIGINT: it flushes), stamps the frames and writes the files. */
  stop(): Promise<LiveCaptureFile[]>;
}

export interface LiveCaptureFile {
  readonly file: string;
  /** Frames written. */
  readonly frames: number;
  /** Of those, frames the device did not time (kernel time scaled by the dilation). */
  readonly untimed: number;
  /** Frames captured before the scenario's time 0, left out. */
  readonly beforeStart: number;
  /** The device's record of frame times filled up (later frames carry scaled kernel times). */
  readonly truncated: boolean;
  /**
   * Frames the kernel dropped before tcpdump read them (its capture buffer was full: tcpdump was not run
   * for a while on a busy machine). They crossed the port all the same; the file lacks them.
   */
  readonly droppedByKernel: number;
  /**
   * tcpdump stopped in the middle of writing its last frame (interrupted at the run's end while behind, on
   * a busy machine): that frame is left out of the file; it crossed the port all the same.
   */
  readonly cutShort: boolean;
  /** Frames still in tcpdump's buffer when it was stopped (unreadAtStop): missing from the file, not the run. */
  readonly unreadAtStop: number;
}

/** The run's clocks: the lab's emulated ns at the scenario's time 0, and the dilation. */
export interface RunClock {
  readonly origin: () => number;
  readonly dilation: () => number;
}

const STARTED = /listening on/;

/** tcpdump's capture buffer, KiB (`-B`). */
const CAPTURE_BUFFER_KIB = 32 * 1024;

/** What tcpdump's closing statistics (stderr) say the kernel dropped: 0 when they say nothing. */
export function kernelDrops(stderr: string): number {
  const m = /(\d+) packets? dropped by kernel/.exec(stderr);
  return m ? Number(m[1]) : 0;
}

/**
 * Frames tcpdump's filter passed but tcpdump had not written when it was stopped ("received by filter"
 * minus "captured" in its closing statistics): still in its capture buffer, behind on a busy machine.
 */
export function unreadAtStop(stderr: string): number {
  const captured = /(\d+) packets? captured/.exec(stderr);
  const received = /(\d+) packets? received by filter/.exec(stderr);
  return captured && received ? Math.max(0, Number(received[1]) - Number(captured[1])) : 0;
}

/**
 * tcpdump's arguments for a capture of `ifname` written to stdout (`-w -`). `--immediate-mode`: libpcap's
 * TPACKET_V3 ring otherwise hands frames over a block at a time, when a block fills or its timeout (about a
 * second) expires, and the SIGINT that ends a short run drops a block not yet handed over — a 0.4 s live run
 * on an idle machine captured 0 of its frames. `-B`: a 32 MiB capture buffer (libpcap's default is 2 MiB),
 * so that a tcpdump the machine does not run for a while loses no frames: at dilation 100 a 100 Gb/s port
 * carries 125 MB/s of real frames. With 2 MiB, captures on a loaded two-core machine came out short of frames
 * (13 to 493 of a port's) while the runs were identical; with 32 MiB none did in 12 runs.
 */
export function tcpdumpToStdout(ifname: string, snaplen = 65535): string[] {
  return [
    "-i",
    ifname,
    "-w",
    "-",
    "-U",
    "--immediate-mode",
    "-B",
    String(CAPTURE_BUFFER_KIB),
    "-s",
    String(snaplen),
    "-n",
    "--time-stamp-precision=nano",
  ];
}

/** Starts tcpdump on every endpoint and resolves once each is listening and its device is timing frames. */
export async function startLiveCapture(
  lab: string,
  client: LiveLab,
  endpoints: readonly CaptureEndpoint[],
  dir: OutputDir,
  clock: RunClock,
): Promise<LiveCapture> {
  type Tcpdump = ResultPromise<{ reject: false; encoding: "buffer"; stdin: "ignore"; maxBuffer: number }>;
  const running: { endpoint: CaptureEndpoint; proc: Tcpdump; written: { bytes: number } }[] = [];
  for (const e of endpoints) {
    await client.request("frame-times", { node: e.node, port: e.port, on: true });
    const proc = execa(
      "ip",
      ["netns", "exec", nsName(lab, e.node), "tcpdump", ...tcpdumpToStdout(`eth${e.port}`)],
      { reject: false, encoding: "buffer", stdin: "ignore", maxBuffer: 1024 * 1024 * 1024 },
    );
    const written = { bytes: 0 };
    proc.stdout?.on("data", (chunk: Buffer) => {
      written.bytes += chunk.length;
    });
    running.push({ endpoint: e, proc, written });
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
      // tcpdump may be behind (a busy machine): what its buffer still holds when it is interrupted is lost.
      await caughtUp(running.map((r) => r.written));
      const out: LiveCaptureFile[] = [];
      for (const r of running) {
        r.proc.kill("SIGINT");
        const result = await r.proc;
        const { node, port } = r.endpoint;
        const times = await client.request<FrameTimes>("frame-times", { node, port, on: false });
        const stderr = Buffer.from(result.stderr).toString();
        if (!/(\d+) packets? captured/.test(stderr))
          throw new Error(`tcpdump failed on ${node}:eth${port}: ${stderr.trim()}`);
        // A tcpdump interrupted while still writing (a busy machine) may stop inside its last record.
        const pcap = parsePcap(result.stdout, { cutShort: true });
        if (!pcap.ok)
          throw new Error(
            `tcpdump wrote no readable pcap for ${node}:eth${port} (${result.stdout.length} bytes: ${pcap.error.message})`,
          );
        const stamped = stampEmulated(pcap.value, decodeFrameTimes(times.frames), clock.dilation());
        const origin = clock.origin();
        const parts: Uint8Array[] = [pcapHeader(FORMAT)];
        let beforeStart = 0;
        let untimed = 0;
        for (const f of stamped.frames) {
          const t = Math.round(f.t - origin);
          if (t < 0) {
            beforeStart++;
            continue;
          }
          if (f.sent === null) untimed++;
          parts.push(pcapRecord(f.frame, t, FORMAT, f.originalLength));
        }
        out.push({
          file: dir.write(captureFileName(r.endpoint), Buffer.concat(parts)),
          frames: parts.length - 1,
          untimed,
          beforeStart,
          truncated: times.truncated,
          droppedByKernel: kernelDrops(stderr),
          cutShort: (pcap.value.cutShortBytes ?? 0) > 0,
          unreadAtStop: unreadAtStop(stderr),
        });
      }
      return out;
    },
  };
}

/** Real ms without new output after which the tcpdumps are taken to have written what they had, and the cap. */
const QUIET_MS = 400;
const CATCH_UP_MAX_MS = 20_000;

/**
 * Waits until no tcpdump has written anything for QUIET_MS (the run is over, so a tcpdump still writing is
 * emptying its buffer), or CATCH_UP_MAX_MS at most: frames left in its buffer when it is interrupted are
 * lost (counted in unreadAtStop). A loaded two-core machine left 556 to 1,874 frames of a port unread.
 */
async function caughtUp(written: readonly { bytes: number }[]): Promise<void> {
  const total = (): number => written.reduce((a, w) => a + w.bytes, 0);
  const until = Date.now() + CATCH_UP_MAX_MS;
  let last = total();
  let quietSince = Date.now();
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    const now = total();
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= QUIET_MS) {
      return;
    }
  }
}

/** The simulator's capture format (lab/capture.ts): nanosecond pcap. */
const FORMAT = { nanosecond: true } as const;

/** The progress line of one port's capture. */
export function describeLiveCapture(c: LiveCaptureFile): string {
  const notes = [
    c.untimed > 0 ? `${c.untimed} not timed by the device (the kernel's own): scaled kernel time` : null,
    c.beforeStart > 0 ? `${c.beforeStart} before the scenario's time 0 left out` : null,
    c.truncated
      ? "the device's record of frame times filled up: later frames carry scaled kernel times"
      : null,
    c.unreadAtStop > 0
      ? `${c.unreadAtStop} still in tcpdump's buffer when it was stopped (it was behind on a busy machine): missing from the file, not from the run`
      : null,
    c.cutShort
      ? "the last frame left out: tcpdump stopped while writing it (a busy machine), not missing from the run"
      : null,
    c.droppedByKernel > 0
      ? `${c.droppedByKernel} dropped by the kernel before tcpdump read them (a busy machine): missing from the file, not from the run`
      : null,
  ].filter((n) => n !== null);
  return `${c.frames} frames captured into ${c.file} (emulated ns since the scenario's time 0${notes.length > 0 ? `; ${notes.join("; ")}` : ""})`;
}
