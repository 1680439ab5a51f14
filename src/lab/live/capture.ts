// tcpdump as the live runtime runs it: its arguments for a capture written to its standard output (rocelab
// creates every capture file itself: tcpdump never opens a path as root), and an open descriptor handed to
// a child process as one of its stdio. `rocelab capture` (cli/capture-on.ts) and a live run's captures
// (run-capture.ts) use them.

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
