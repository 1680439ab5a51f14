// A capture of one of the device's own ports, asked for over its control channel: tcpdump in the device's
// namespace writing pcap to its stdout, handed to the controller in chunks. What `rocelab capture` does
// with `ip netns exec` in a local lab, for a device whose namespace the controller cannot enter (a
// container on another host). The frames are what crossed the interface, with the kernel's timestamps.

import { execa } from "execa";

/** Longest capture a controller may ask for, real seconds. */
export const MAX_CAPTURE_SECONDS = 600;

export interface CaptureResult {
  readonly frames: number;
  readonly bytes: number;
}

/** Runs tcpdump on `ifname` for `seconds`; `onData` gets the pcap as it comes. */
export async function capturePort(
  ifname: string,
  seconds: number,
  snaplen: number,
  onData: (chunk: Buffer) => void,
): Promise<CaptureResult> {
  const proc = execa(
    "tcpdump",
    ["-i", ifname, "-w", "-", "-U", "-s", String(snaplen), "-n", "--time-stamp-precision=nano"],
    { reject: false, buffer: { stdout: false, stderr: true }, encoding: "buffer", stdin: "ignore" },
  );
  let bytes = 0;
  proc.stdout?.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    onData(chunk);
  });
  const timer = setTimeout(() => proc.kill("SIGINT"), seconds * 1000);
  const r = await proc;
  clearTimeout(timer);
  const stderr = Buffer.from(r.stderr as Uint8Array).toString();
  const m = /(\d+) packets? captured/.exec(stderr);
  if (!m) throw new Error(`tcpdump on ${ifname} failed: ${stderr.trim().split("\n").pop() ?? "no output"}`);
  return { frames: Number(m[1]), bytes };
}
