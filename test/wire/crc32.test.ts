import { crc32 } from "node:zlib";
import t from "tap";
import { CRC32_JS_MAX, crc32Update } from "../../src/wire/crc32.js";

t.test("the slice-by-8 CRC-32 equals zlib's for every length, offset and starting value", async (t) => {
  const buf = new Uint8Array(CRC32_JS_MAX + 40);
  let x = 0x1234_5678;
  for (let i = 0; i < buf.length; i++) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    buf[i] = x >>> 24;
  }
  let mismatches = 0;
  for (const start of [0, 1, 3, 7]) {
    for (let end = start; end <= buf.length; end++) {
      for (const seed of [0, 0xffff_ffff, 0x9d3c_0a5e]) {
        if (crc32Update(buf, start, end, seed) !== crc32(buf.subarray(start, end), seed)) mismatches++;
      }
    }
  }
  t.equal(mismatches, 0);
  t.equal(crc32Update(new TextEncoder().encode("123456789"), 0, 9, 0), 0xcbf4_3926, "the CRC-32 check value");
});
