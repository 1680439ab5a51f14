// Frame buffers carved from shared slabs. A `new Uint8Array(n)` of a full-size frame gets its own
// off-heap backing store (a malloc, zeroing, and external memory the garbage collector must account
// and sweep per frame); a view into a slab is one small heap object. Slabs are never reused: a slab is
// freed by the collector once no frame views it, so frames stay independent values (no release call, no
// ownership rule) and a fresh slab is zeroed like a new array. The cost is memory held by stragglers: a
// long-lived frame keeps its whole slab, so slabs are kept small.
//
// Callers must use `byteOffset` with `buffer` (every frame is a view). Measured on this project's
// machine: 1078-byte frames, 0.4-1.2 µs each from a slab against 3.8-11 µs as their own arrays.

/** Bytes per slab: about 240 full-size (1 KB payload) frames. */
const SLAB_BYTES = 256 * 1024;
/** Larger frames get an array of their own. */
const MAX_FROM_SLAB = 16 * 1024;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

/** A zeroed frame buffer of `length` bytes (a view into a slab, 8-byte aligned). */
export function allocFrame(length: number): Uint8Array {
  if (length > MAX_FROM_SLAB) return new Uint8Array(length);
  const size = (length + 7) & ~7;
  if (used + size > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const frame = new Uint8Array(slab, used, length);
  used += size;
  return frame;
}
