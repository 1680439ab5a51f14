import t from "tap";
import { CODEC_NAMES, fuzzCodecs } from "../../scripts/fuzz/codecs.js";
import { buildFrameCatalog } from "../../src/verify/frame-catalog.js";
import { FrameMutator, frameLayout, MUTATIONS, Mutation } from "../../src/verify/frame-mutator.js";
import { FUZZ_SEED, fuzzFrames } from "../helpers/fuzz.js";
import { guarded } from "../helpers/guarded.js";

const seeds = buildFrameCatalog().map((c) => c.frame);
const frames = fuzzFrames(20_000);

t.test("the mutator is seeded, covers every mutation and never changes its seed frames", (t) => {
  const copies = seeds.map((s) => s.slice());
  const a = new FrameMutator(FUZZ_SEED, seeds);
  const b = new FrameMutator(FUZZ_SEED, seeds);
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const x = a.next();
    const y = b.next();
    if (i < 200) t.same([...x.frame], [...y.frame], `frame ${i} identical for one seed`);
    seen.add(x.mutation);
  }
  t.same([...seen].sort(), [...MUTATIONS].sort(), "every mutation drawn");
  t.ok(
    seeds.every((s, i) => s.length === copies[i]!.length && s.every((v, j) => v === copies[i]![j])),
    "seed frames untouched",
  );
  const other = new FrameMutator(`${FUZZ_SEED}-other`, seeds);
  const c = new FrameMutator(FUZZ_SEED, seeds);
  let differs = false;
  for (let i = 0; i < 50 && !differs; i++) differs = other.next().frame.length !== c.next().frame.length;
  t.ok(differs, "another seed gives another sequence");
  t.end();
});

t.test("mutations do what they say", (t) => {
  const m = new FrameMutator(FUZZ_SEED, seeds);
  const write = seeds.find((s) => s.length > 1000 && frameLayout(s).bth > 0)!;
  t.equal(m.apply(Mutation.ZeroLength, write.slice()).length, 0, "zero-length");
  const tagged = m.apply(Mutation.VlanDouble, write.slice());
  t.equal(tagged.length, write.length + 8, "two tags add 8 bytes");
  t.equal(frameLayout(tagged).ip, 22, "the IPv4 header is found behind both tags");
  const pfc = m.apply(Mutation.PfcVector, write.slice());
  t.equal((pfc[12]! << 8) | pfc[13]!, 0x8808, "a PFC mutation is a MAC Control frame");
  const cut = m.apply(Mutation.TruncateBoundary, write.slice());
  t.ok(cut.length < write.length, "truncation shortens");
  t.ok(m.apply(Mutation.Oversized, write.slice()).length > write.length, "oversized grows");
  t.end();
});

const report = fuzzCodecs(new FrameMutator(FUZZ_SEED, seeds), frames);
t.equal(report.frames, frames, `${frames} mutated frames through ${CODEC_NAMES.length} parsers`);
for (const name of CODEC_NAMES) {
  t.test(`${name}: ok or err, never a throw; what parses serializes back`, (t) => {
    const c = report.tallies[name]!;
    t.equal(c.exceptions, 0, "no exception");
    t.equal(c.ok + c.err, frames, "every frame answered");
    t.ok(c.err > 0, `mutated frames rejected (${c.err})`);
    t.ok(c.ok > 0, `some still parse (${c.ok}), so the fuzz reached the codec's body`);
    t.equal(c.roundTripFailures, 0, `round trips all good (${c.roundTrips} tried)`);
    t.end();
  });
}
t.same(report.failures, [], "no failure to reproduce");

t.test("no codec reads outside the frame (a view that throws on such a read)", (t) => {
  const n = Math.max(1, Math.floor(frames / 10));
  const r = fuzzCodecs(new FrameMutator(`${FUZZ_SEED}-guarded`, seeds), n, guarded);
  t.equal(r.exceptions, 0, `${n} frames, no out-of-bounds read`);
  t.same(r.failures, []);
  t.end();
});
