// The size of the fuzz sample `npm test` runs: ROCELAB_FUZZ_FRAMES frames per target when set (CI can
// raise it; `npm run fuzz` is the million-frame run), else the default each test file names.

export function fuzzFrames(ciDefault: number): number {
  const raw = process.env.ROCELAB_FUZZ_FRAMES;
  if (raw === undefined || raw === "") return ciDefault;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`ROCELAB_FUZZ_FRAMES=${raw}: need a positive integer`);
  return n;
}

/** One seed per run of the suite unless ROCELAB_FUZZ_SEED pins one (to replay a failure). */
export const FUZZ_SEED = process.env.ROCELAB_FUZZ_SEED ?? "rocelab-fuzz-ci";
