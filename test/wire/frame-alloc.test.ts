// Frame buffers (wire/frame-alloc.ts): a frame given back after its receiver consumed it serves the next
// frame of that length, zeroed; frames the module did not carve (a live lab's received frames, large
// frames) are never taken, and a copy is a buffer of its own.
import t from "tap";
import { allocFrame, copyFrame, releaseFrame } from "../../src/wire/frame-alloc.js";

t.test("a given-back frame is reused for the same length, zeroed", (t) => {
  const a = allocFrame(1001);
  a.fill(0xab);
  releaseFrame(a);
  const b = allocFrame(1001);
  t.equal(b, a, "the same buffer");
  t.ok(
    b.every((x) => x === 0),
    "zeroed again",
  );
  t.not(allocFrame(1001), a, "taken once");
  t.end();
});

t.test("a given-back frame serves only its own length", (t) => {
  const a = allocFrame(777);
  releaseFrame(a);
  const b = allocFrame(778);
  t.not(b.buffer === a.buffer && b.byteOffset === a.byteOffset, true, "another length gets other bytes");
  t.equal(allocFrame(777), a, "its own length still finds it");
  t.end();
});

t.test("frames not carved here are never taken back", (t) => {
  const own = new Uint8Array(555);
  releaseFrame(own);
  t.not(allocFrame(555), own, "a plain array stays its owner's");
  const chunk = new Uint8Array(new ArrayBuffer(256 * 1024), 4096, 556);
  releaseFrame(chunk);
  t.not(allocFrame(556).buffer, chunk.buffer, "a view of someone else's buffer (a receive ring's chunk) too");
  const big = allocFrame(20_000);
  releaseFrame(big);
  t.not(allocFrame(20_000), big, "past the slab limit frames are arrays of their own, not kept");
  t.end();
});

t.test("a copy has its own bytes", (t) => {
  const a = allocFrame(64);
  a.fill(7);
  const c = copyFrame(a);
  t.same(c, a, "the same bytes");
  c[0] = 9;
  t.equal(a[0], 7, "in another buffer");
  t.end();
});
