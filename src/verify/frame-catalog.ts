// One frame of every kind the lab puts on a wire, built by the same wire builders the devices use and
// addressed from the default fabric's real address plan, each with what an outside decoder must read in
// it. `rocelab frames --pcap FILE` writes them as a capture; the tshark test holds Wireshark's reading of
// every frame against `expect`, and `checkCapture` must find them all clean.
//
// The story the frames tell: h1 (QP 0x000102) runs an RC connection to h5 (QP 0x000105) across
// leaf1 -> spine -> leaf2. h1's frames leave it addressed to its gateway port leaf1:eth3; h5's answers
// leave h5 addressed to leaf2:eth3. Switch-made frames (PFC, ARP replies, LLDP, ICMP) come from the port
// that sends them.

import { CatalogBuilder, type CatalogFrame } from "./frame-catalog-builder.js";
import { addCmFrame } from "./frame-catalog-cm.js";
import { addIcmpFrames, addLinkControlFrames } from "./frame-catalog-control.js";
import { addRoceV1Frame, addVlanFrame, addVxlanFrame } from "./frame-catalog-encap.js";
import { addRcFrames } from "./frame-catalog-rc.js";

export {
  CATALOG_QPN_H1,
  CATALOG_QPN_H5,
  type CatalogFrame,
  catalogPayload,
  type FrameExpectation,
} from "./frame-catalog-builder.js";

/**
 * Builds the catalog: every frame kind once, from the default topology's address plan. The groups share
 * h1's PSNs and both hosts' IPv4 identifications, so their order is part of the catalog.
 */
export function buildFrameCatalog(): CatalogFrame[] {
  const c = new CatalogBuilder();
  addRcFrames(c);
  addLinkControlFrames(c);
  addVxlanFrame(c);
  addIcmpFrames(c);
  addRoceV1Frame(c);
  addVlanFrame(c);
  addCmFrame(c);
  return c.out;
}
