// Telling a lossless drop the machine caused from one the network would make (live lab, free clocks): a
// frame that found its PG's headroom full although XOFF had gone out longer ago than the link's reaction
// time could only have been sent by a late (or disobeying) upstream. The PFC feature installs the judge
// when `pfc.attributeLateness` is on; the admit stage asks it before counting a headroom drop.

import type { Nanoseconds } from "../device/contract.js";

export interface OverrunJudge {
  /** Did a frame of `pg` arriving on `port` now come after a punctual upstream would have stopped? */
  overrun(port: number, pg: number, now: Nanoseconds): boolean;
}

export class PauseOverrun {
  judge: OverrunJudge | null = null;
}
