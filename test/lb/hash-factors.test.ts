import t from "tap";
import { createRandom } from "../../src/device/prng.js";
import {
  ALGORITHM_CRC32,
  ALGORITHM_TOEPLITZ,
  ALGORITHM_XOR32,
  FIELD_DEST_QP,
  FIELD_DST_IP,
  FIELD_DST_PORT,
  FIELD_PROTOCOL,
  FIELD_SRC_IP,
  FIELD_SRC_PORT,
  FlowHasher,
  toeplitz,
  xor32,
} from "../../src/lb/ecmp-hash.js";

const FIVE = FIELD_SRC_IP | FIELD_DST_IP | FIELD_PROTOCOL | FIELD_SRC_PORT | FIELD_DST_PORT;

t.test("Toeplitz: Microsoft's RSS verification vectors (default key)", (t) => {
  // "Verifying the RSS Hash Calculation": 66.9.149.187:2794 -> 161.142.100.80:1766.
  const ip = [66, 9, 149, 187, 161, 142, 100, 80];
  t.equal(toeplitz(Uint8Array.from(ip)), 0x323e8fc2, "IPv4 addresses only");
  t.equal(toeplitz(Uint8Array.from([...ip, 0x0a, 0xea, 0x06, 0xe6])), 0x51ccc178, "with TCP ports");
  // 199.92.111.2:14230 -> 65.69.140.83:4739
  const b = [199, 92, 111, 2, 65, 69, 140, 83, 0x37, 0x96, 0x12, 0x83];
  t.equal(toeplitz(Uint8Array.from(b)), 0xc626b0ea);
  t.end();
});

t.test("XOR32 folds big-endian words, a short tail padded with zeros", (t) => {
  t.equal(xor32(Uint8Array.from([1, 2, 3, 4, 0x10, 0x20, 0x30, 0x40])), (0x01020304 ^ 0x10203040) >>> 0);
  t.equal(xor32(Uint8Array.from([1, 2, 3, 4, 0xff])), (0x01020304 ^ 0xff000000) >>> 0);
  t.end();
});

t.test("destQp is a hash factor for RoCEv2 packets only", (t) => {
  const h = new FlowHasher(FIVE | FIELD_DEST_QP, ALGORITHM_CRC32, 9);
  const plain = new FlowHasher(FIVE, ALGORITHM_CRC32, 9);
  const a = h.hash(1, 2, 17, 0xc000, 4791, 0x100);
  t.not(a, h.hash(1, 2, 17, 0xc000, 4791, 0x101), "another Dest QP, another hash");
  t.equal(h.hash(1, 2, 17, 0xc000, 4791, -1), plain.hash(1, 2, 17, 0xc000, 4791), "non-RoCE: 5-tuple only");
  // Four QPs between one host pair that share the 5-tuple (same source port): only Dest QP tells them apart.
  const spread = (hasher: FlowHasher) =>
    new Set([0x100, 0x101, 0x102, 0x103].map((qp) => hasher.select(4, 1, 2, 17, 0xc000, 4791, qp))).size;
  t.equal(spread(plain), 1, "without destQp the four QPs share one member");
  t.ok(spread(h) > 1, "with destQp they spread");
  t.end();
});

for (const [name, algorithm] of [
  ["xor32", ALGORITHM_XOR32],
  ["toeplitz", ALGORITHM_TOEPLITZ],
] as const) {
  t.test(`${name}: 1,000 RoCE flows spread within ±10 % over 4 next hops`, (t) => {
    const hasher = new FlowHasher(FIVE | FIELD_DEST_QP, algorithm, 0x1234);
    const random = createRandom(3, "flows");
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 1000; i++) {
      const src = (0x0a010000 + 2 * random.int(64) + 1) >>> 0;
      const dst = (0x0a010000 + 2 * random.int(64) + 1) >>> 0;
      counts[hasher.select(4, src, dst, 17, 0xc000 + random.int(16384), 4791, random.int(1 << 24))]!++;
    }
    for (const c of counts) t.ok(c >= 225 && c <= 275, `next hop got ${c} of 1000 (${counts.join(", ")})`);
    t.end();
  });
}
