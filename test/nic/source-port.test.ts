// How a NIC chooses the RoCEv2 UDP source port of its QPs (nic/features/source-port.ts): per QP (the Linux
// kernel's hash, the default), one fixed port for all, or the hash folded into a range; a port the
// create-qp command names still wins.
import t from "tap";
import { qpInit } from "../../src/nic/commands.js";
import { sourcePortFeature, sourcePortFor } from "../../src/nic/features/source-port.js";
import { nicSettings } from "../../src/scenario/schema.js";
import { roceUdpSourcePort } from "../../src/wire/roce-frame.js";

const create = (qpn: number, udpSrcPort?: number) => ({
  type: "create-qp" as const,
  qpn,
  remoteQpn: 0x100,
  remoteIp: 0x0a000001,
  ...(udpSrcPort !== undefined ? { udpSrcPort } : {}),
});

t.test("per-qp (default): the kernel's hash, a different port per QP", async (t) => {
  const c = sourcePortFeature.resolve(undefined, { rateBps: 100e9 });
  t.same(c, { mode: "per-qp" });
  const ports = [0x100, 0x101, 0x102, 0x103].map((q) => sourcePortFor(c, q, 0x100));
  t.same(
    ports,
    [0x100, 0x101, 0x102, 0x103].map((q) => roceUdpSourcePort(q, 0x100)),
  );
  t.equal(new Set(ports).size, 4, "four QPs, four ports");
});

t.test("fixed: one port for every QP; range: the hash folded into min..max", async (t) => {
  const fixed = sourcePortFeature.resolve({ mode: "fixed", port: 50_000 }, { rateBps: 100e9 });
  t.same(
    [0x100, 0x101, 0x102].map((q) => sourcePortFor(fixed, q, 0x100)),
    [50_000, 50_000, 50_000],
  );
  const range = sourcePortFeature.resolve({ mode: "range", min: 60_000, max: 60_003 }, { rateBps: 100e9 });
  for (let q = 0x100; q < 0x140; q++) {
    const p = sourcePortFor(range, q, 0x100);
    t.ok(p >= 60_000 && p <= 60_003, `QP ${q}: ${p}`);
  }
  t.match(
    sourcePortFeature.check!({ mode: "range", min: 5, max: 4 }, undefined as never),
    /min 5 is above sourcePort.max 4/,
  );
  t.notOk(nicSettings.safeParse({ sourcePort: { mode: "random" } }).success, "unknown modes refused");
  t.notOk(nicSettings.safeParse({ sourcePort: { port: 70_000 } }).success, "ports above 65535 refused");
});

t.test("create-qp: the configured choice, unless the command names a port", async (t) => {
  const fixed = { mode: "fixed" as const, port: 49_999 };
  const a = qpInit(create(0x100), new Map(), 16, fixed);
  const b = qpInit(create(0x101, 51_000), new Map(), 16, fixed);
  t.ok(typeof a !== "string" && a.udpSrcPort === 49_999);
  t.ok(typeof b !== "string" && b.udpSrcPort === 51_000, "the command's own port wins");
});
