import { crc32 as zlibCrc32 } from "node:zlib";
import t from "tap";
import { createRandom } from "../../src/device/prng.js";
import {
  ALGORITHM_CRC16,
  ALGORITHM_CRC32,
  crc16,
  crc32,
  FIELD_DST_IP,
  FIELD_DST_PORT,
  FIELD_PROTOCOL,
  FIELD_SRC_IP,
  FIELD_SRC_PORT,
  FlowHasher,
} from "../../src/lb/ecmp-hash.js";
import { roceUdpSourcePort } from "../../src/wire/roce.js";

const ALL = FIELD_SRC_IP | FIELD_DST_IP | FIELD_PROTOCOL | FIELD_SRC_PORT | FIELD_DST_PORT;

t.test("CRC-16/ARC check value", (t) => {
  t.equal(crc16(new TextEncoder().encode("123456789")), 0xbb3d);
  t.end();
});

t.test("CRC-32 check value, and zlib's on random keys of every length", (t) => {
  t.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  const random = createRandom(9, "crc32");
  const key = new Uint8Array(13);
  let same = true;
  for (let i = 0; i < 2000; i++) {
    for (let b = 0; b < key.length; b++) key[b] = random.int(256);
    const n = i % 14;
    same &&= crc32(key, n) === zlibCrc32(key.subarray(0, n));
  }
  t.ok(same, "identical to node:zlib crc32");
  t.end();
});

for (const [name, algorithm] of [
  ["crc32", ALGORITHM_CRC32],
  ["crc16", ALGORITHM_CRC16],
] as const) {
  t.test(`${name}: 1,000 RoCE flows spread within ±10 % over 4 next hops`, (t) => {
    const hasher = new FlowHasher(ALL, algorithm, 0x1234);
    const random = createRandom(3, "flows");
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 1000; i++) {
      // Realistic flows: hosts in 10.1.0.0/16, QPs with the kernel's source-port rule.
      const src = (0x0a010000 + 2 * random.int(64) + 1) >>> 0;
      const dst = (0x0a010000 + 2 * random.int(64) + 1) >>> 0;
      const sport = roceUdpSourcePort(0x100 + random.int(4096), 0x100 + random.int(4096));
      counts[hasher.select(4, src, dst, 17, sport, 4791)]!++;
    }
    for (const c of counts) t.ok(c >= 225 && c <= 275, `next hop got ${c} of 1000 (${counts.join(", ")})`);
    t.end();
  });
}

t.test("one 5-tuple always maps to one next hop; the seed changes the mapping", (t) => {
  const a = new FlowHasher(ALL, ALGORITHM_CRC32, 1);
  const b = new FlowHasher(ALL, ALGORITHM_CRC32, 2);
  const first = a.select(4, 0x0a010001, 0x0a010009, 17, 0xc123, 4791);
  for (let i = 0; i < 100; i++) t.equal(a.select(4, 0x0a010001, 0x0a010009, 17, 0xc123, 4791), first);
  let differ = 0;
  for (let sport = 0xc000; sport < 0xc000 + 200; sport++) {
    if (
      a.select(4, 0x0a010001, 0x0a010009, 17, sport, 4791) !==
      b.select(4, 0x0a010001, 0x0a010009, 17, sport, 4791)
    )
      differ++;
  }
  // Independent choices differ 3/4 of the time; a polarised hash would differ 0 or 200 times.
  t.ok(differ > 110 && differ < 190, `two seeds disagree on ${differ}/200 flows`);
  t.end();
});

t.test("fields left out of the hash do not matter", (t) => {
  const h = new FlowHasher(FIELD_SRC_IP | FIELD_DST_IP, ALGORITHM_CRC32, 9);
  const base = h.hash(0x0a010001, 0x0a010009, 17, 1, 2);
  t.equal(h.hash(0x0a010001, 0x0a010009, 6, 999, 4791), base);
  t.not(h.hash(0x0a010003, 0x0a010009, 17, 1, 2), base);
  t.end();
});
