// Seeded pseudo-random numbers for devices and runtimes: xoshiro128** seeded through splitmix32.
// Every device gets its own stream derived from the run seed and its name, so adding a device to a
// topology does not change the random choices of the others.

/** A 32-bit hash of a string (FNV-1a followed by a murmur3 finaliser, for good avalanche). */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's 32-bit finaliser (also ECMP's seed mixer). */
export function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Exponentially distributed with the given mean. */
  exponential(mean: number): number;
}

export function createRandom(seed: number | string, stream = ""): Random {
  let s = (typeof seed === "number" ? seed >>> 0 : hashString(seed)) ^ hashString(stream);
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  if ((a | b | c | d) === 0) a = 1;
  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  const next = (): number => nextU32() / 0x1_0000_0000;
  return {
    next,
    int: (n) => Math.floor(next() * n),
    exponential: (mean) => -mean * Math.log(1 - next()),
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
