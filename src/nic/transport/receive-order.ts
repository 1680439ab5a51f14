// The responder's receive-order seam: where the PSN of an arriving request is judged against the PSN the
// responder expects (in order, duplicate, or out of order and whether a NAK is owed). Today's RC
// behaviour is go-back-N (InfiniBand Architecture Specification Vol. 1, RC responder: the "PSN sequence
// error" NAK): a packet beyond the expected PSN is dropped and NAKed once per gap, and the requester
// resends from the NAKed PSN. Out-of-order placement (a reorder buffer for sprayed packets) is another
// implementation of this interface.

import { psnDiff } from "../../wire/roce.js";
import type { TransportSettings } from "./transport.js";

/** What a request's PSN means to the responder. */
export const Arrival = {
  /** The expected PSN: execute it. */
  InOrder: 0,
  /** Before the expected PSN: already executed (re-ACK, or answer a READ again). */
  Duplicate: 1,
  /** Beyond the expected PSN, inside a gap already NAKed: drop silently. */
  OutOfOrder: 2,
  /** Beyond the expected PSN: drop and NAK the expected PSN. */
  OutOfOrderNak: 3,
  /** Beyond the expected PSN but within a reorder window: keep it until the gap closes (reorder-window.ts). */
  Placed: 4,
} as const;
export type Arrival = (typeof Arrival)[keyof typeof Arrival];

export interface ReceiveOrder {
  /** A request with `psn` arrived while `ePsn` is expected (24-bit PSNs, serial-number arithmetic). */
  arrive(psn: number, ePsn: number): Arrival;
  /** The responder executed the expected request and moved its expected PSN on: any gap is closed. */
  advanced(): void;
  /** The responder NAKed the expected PSN itself (RNR NAK): later packets are a gap already NAKed. */
  naked(): void;
}

/** Go-back-N: one NAK per gap while `nakRetryGuard` is on, a NAK for every out-of-order packet otherwise. */
export class GoBackN implements ReceiveOrder {
  /** A NAK went out for the current gap; stay silent until the expected PSN arrives. */
  private nakOutstanding = false;

  constructor(private readonly settings: Readonly<Pick<TransportSettings, "nakRetryGuard">>) {}

  arrive(psn: number, ePsn: number): Arrival {
    const d = psnDiff(psn, ePsn);
    if (d === 0) return Arrival.InOrder;
    if (d < 0) return Arrival.Duplicate;
    if (this.nakOutstanding && this.settings.nakRetryGuard) return Arrival.OutOfOrder;
    this.nakOutstanding = true;
    return Arrival.OutOfOrderNak;
  }

  advanced(): void {
    this.nakOutstanding = false;
  }

  naked(): void {
    this.nakOutstanding = true;
  }
}
