// A requester's two retry counters (IBTA Vol. 1 9.7.6.1.3, 9.7.5.2.8): `retryCnt` retries after local ACK
// timeouts and PSN-sequence NAKs without progress, `rnrRetry` after RNR NAKs (7: for ever); forward progress
// restores both.

import type { TransportSettings } from "./transport.js";

export class RetryCounters {
  /** Retries left before retry exceeded. */
  left: number;
  /** RNR retries left before RNR retry exceeded. */
  rnrLeft: number;

  constructor(private readonly settings: Readonly<Pick<TransportSettings, "retryCnt" | "rnrRetry">>) {
    this.left = settings.retryCnt;
    this.rnrLeft = settings.rnrRetry;
  }

  /** Forward progress: every retry back. */
  reset(): void {
    this.left = this.settings.retryCnt;
    this.rnrLeft = this.settings.rnrRetry;
  }

  /** Takes a retry; false when none was left. */
  take(): boolean {
    if (this.left === 0) return false;
    this.left--;
    return true;
  }

  /** Takes an RNR retry (rnrRetry 7: always there); false when none was left. */
  takeRnr(): boolean {
    if (this.settings.rnrRetry === 7) return true;
    if (this.rnrLeft === 0) return false;
    this.rnrLeft--;
    return true;
  }
}
