// Static ECMP: a hash of the configured flow fields picks the live member (hash mod live members), so one
// flow always takes one path while the group is unchanged.

import type { Nanoseconds } from "../device/contract.js";
import type { EcmpGroup, EcmpMember } from "./ecmp-group.js";
import { FlowHasher, type HashAlgorithmId } from "./ecmp-hash.js";
import type { FlowFields, LbStrategy } from "./strategy.js";

export class StaticEcmp implements LbStrategy {
  readonly name = "ecmp";
  readonly hasher: FlowHasher;

  /** `fields`: bit set of FIELD_*; `algorithm`: ALGORITHM_*; `seed` mixed in after the hash. */
  constructor(fields: number, algorithm: HashAlgorithmId, seed: number) {
    this.hasher = new FlowHasher(fields, algorithm, seed >>> 0);
  }

  select(m: FlowFields, group: EcmpGroup, _now: Nanoseconds): EcmpMember {
    const live = group.live;
    if (live.length === 1) return live[0]!;
    return live[this.hasher.selectFlow(live.length, m)]!;
  }
}
