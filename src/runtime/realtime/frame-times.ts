// The emulated time of each frame a live device sends or reads on one port, recorded on request while a
// capture or an emulated ping runs (`rocelab capture` writes these times into the pcapng instead of the
// kernel's real-time stamps; lab/live/frame-times.ts matches them to the captured frames). A frame sent is
// stamped when it left the port, a frame read when it arrived on the emulated wire (its sender's stamp:
// when it left plus the link's delay), as the simulator's capture stamps them (lab/capture.ts).

/** Bytes kept of each frame: enough for Ethernet, IPv4, UDP and BTH, or an ICMP error's quoted header. */
export const FRAME_HEAD_BYTES = 64;
/** At most this many frames per recording (about 5 s real of a 100 Gb/s port at dilation 1000). */
export const MAX_FRAME_TIMES = 200_000;

/** One recorded frame, as it crosses the control channel. */
export interface FrameTime {
  /** 1: the device sent it; 0: it read it. */
  readonly o: 0 | 1;
  /** Emulated ns since the lab's epoch. */
  readonly t: number;
  /** The frame's length. */
  readonly n: number;
  /** Its first FRAME_HEAD_BYTES bytes, base64. */
  readonly h: string;
}

export interface FrameTimes {
  readonly frames: readonly FrameTime[];
  /** More frames crossed the port than MAX_FRAME_TIMES; the later ones were not recorded. */
  readonly truncated: boolean;
}

export class FrameTimeLog {
  private readonly times: number[] = [];
  private readonly out: (0 | 1)[] = [];
  private readonly heads: Uint8Array[] = [];
  private readonly lengths: number[] = [];
  private truncated = false;

  record(sent: boolean, t: number, frame: Uint8Array): void {
    if (this.times.length >= MAX_FRAME_TIMES) {
      this.truncated = true;
      return;
    }
    this.times.push(t);
    this.out.push(sent ? 1 : 0);
    this.lengths.push(frame.length);
    this.heads.push(frame.slice(0, FRAME_HEAD_BYTES));
  }

  take(): FrameTimes {
    return {
      frames: this.times.map((t, i) => ({
        o: this.out[i]!,
        t,
        n: this.lengths[i]!,
        h: Buffer.from(this.heads[i]!).toString("base64"),
      })),
      truncated: this.truncated,
    };
  }
}
