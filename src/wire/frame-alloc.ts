// Frame buffers carved from shared slabs. A `new Uint8Array(n)` of a full-size frame gets its own
// off-heap backing store (a malloc, zeroing, and external memory the garbage collector must account
// and sweep per frame); a view into a slab is one small heap object. A slab is freed by the collector once
// no frame views it, so a frame is an independent value: nobody has to give it back.
//
// One device may give it back all the same: the NIC that a frame was delivered to, once it has consumed
// it (`releaseFrame`, nic/receive-path.ts); so does the simulator for a frame its link lost and for one
// it copied to another worker of a parallel run (runtime/sim/simulator.ts). The buffer then serves the
// next frame of the same length (zeroed again), so a simulator run reuses a few hot buffers instead of
// streaming every frame through fresh memory and leaving the collector a view and, every 240 frames, a
// slab to sweep. That is safe because a delivered frame has one receiver: nothing else keeps a frame it
// handed on (a capture copies what it records; a switch that floods one frame to several ports gives each
// port its own copy, switch/features/l2-bridge.ts). Only slab frames are taken back (a live lab's received
// frames are views of the native receive ring's chunks, and stay the runtime's), and at most
// FREE_PER_LENGTH per length.
//
// Callers must use `byteOffset` with `buffer` (every frame is a view). Measured on this project's
// machine: 1078-byte frames, 0.4-1.2 µs each from a slab against 3.8-11 µs as their own arrays.

/** Bytes per slab: about 240 full-size (1 KB payload) frames. */
const SLAB_BYTES = 256 * 1024;
/** Larger frames get an array of their own. */
const MAX_FROM_SLAB = 16 * 1024;

/** Frames given back, kept per length, at most this many each. */
const FREE_PER_LENGTH = 1024;

/** The slabs this module carved: only their frames are taken back. */
const slabs = new WeakSet<ArrayBuffer>();
let slab = newSlab();
let used = 0;
/** Given-back frames by length (index: the frame's length). */
const free: (Uint8Array[] | undefined)[] = [];

function newSlab(): ArrayBuffer {
  const b = new ArrayBuffer(SLAB_BYTES);
  slabs.add(b);
  return b;
}

/** A zeroed frame buffer of `length` bytes (a view into a slab, 8-byte aligned). */
export function allocFrame(length: number): Uint8Array {
  if (length > MAX_FROM_SLAB) return new Uint8Array(length);
  const reuse = free[length]?.pop();
  return reuse !== undefined ? reuse.fill(0) : carve(length);
}

/** A fresh (zeroed) view of `length` bytes cut from the current slab. */
function carve(length: number): Uint8Array {
  const size = (length + 7) & ~7;
  if (used + size > SLAB_BYTES) {
    slab = newSlab();
    used = 0;
  }
  const frame = new Uint8Array(slab, used, length);
  used += size;
  return frame;
}

/**
 * `frame` was delivered to the caller and consumed: no one holds it any more, so its buffer may serve a
 * later `allocFrame` of the same length. Frames not carved here are left alone.
 */
export function releaseFrame(frame: Uint8Array): void {
  const n = frame.length;
  if (n > MAX_FROM_SLAB || !slabs.has(frame.buffer as ArrayBuffer)) return;
  let list = free[n];
  if (list === undefined) {
    list = [];
    free[n] = list;
  }
  if (list.length < FREE_PER_LENGTH) list.push(frame);
}

/** A copy of `frame` in a buffer of its own (from a slab when it fits). */
export function copyFrame(frame: Uint8Array): Uint8Array {
  const n = frame.length;
  if (n > MAX_FROM_SLAB) return frame.slice();
  // A given-back buffer is not zeroed first: every byte of it is overwritten.
  const copy = free[n]?.pop() ?? carve(n);
  copy.set(frame);
  return copy;
}
