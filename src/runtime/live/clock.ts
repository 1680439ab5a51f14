// The live runtime's clock: emulated ns = (monotonic ns − epoch) / dilation.
//
// Every device process of a lab uses the same epoch (CLOCK_MONOTONIC is system-wide, also across network
// namespaces), so their emulated times agree. Dilation D stretches emulated time: at D = 1000 a 100 Gb/s
// emulated link carries 100 Mb/s of real frames and a 1 µs emulated timer waits 1 ms of real time.

export class LiveClock {
  constructor(
    /** process.hrtime.bigint() value that is emulated time 0. */
    readonly epoch: bigint,
    readonly dilation: number,
  ) {
    if (!(dilation >= 1)) throw new Error(`dilation must be >= 1, got ${dilation}`);
    this.epochNs = Number(epoch);
  }

  private readonly epochNs: number;

  /** Current emulated time, integer ns. */
  now(): number {
    return Math.floor(Number(process.hrtime.bigint() - this.epoch) / this.dilation);
  }

  /** Emulated time of a CLOCK_MONOTONIC instant (a process.hrtime.bigint() value, as ns), integer ns. */
  emulatedAt(hrtimeNs: number): number {
    return Math.floor((hrtimeNs - this.epochNs) / this.dilation);
  }

  /** Real milliseconds until emulated time `at` (<= 0 when it has passed). */
  realMsUntil(at: number): number {
    return ((at - this.now()) * this.dilation) / 1e6;
  }

  /** Real nanoseconds an emulated duration takes. */
  realNs(emulatedNs: number): number {
    return emulatedNs * this.dilation;
  }
}
