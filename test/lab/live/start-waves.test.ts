// The supervisor starts a fabric's device processes a few at a time (src/lab/live/start-waves.ts).
import t from "tap";
import { startConcurrency, startLimited } from "../../../src/lab/live/start-waves.js";

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

t.test("never more than the limit at once, every item started once", async (t) => {
  let running = 0;
  let most = 0;
  const started: number[] = [];
  await startLimited(
    Array.from({ length: 24 }, (_, i) => i),
    4,
    async (i) => {
      running++;
      most = Math.max(most, running);
      started.push(i);
      for (let k = 0; k < 1 + (i % 3); k++) await tick();
      running--;
    },
  );
  t.equal(most, 4);
  t.same(
    [...started].sort((a, b) => a - b),
    Array.from({ length: 24 }, (_, i) => i),
  );
});

t.test("the first failure rejects once the running ones end; nothing new starts after it", async (t) => {
  const started: number[] = [];
  let running = 0;
  await t.rejects(
    startLimited([0, 1, 2, 3, 4, 5, 6, 7], 2, async (i) => {
      started.push(i);
      running++;
      await tick();
      running--;
      if (i === 1) throw new Error("h2 did not start within 15 s");
    }),
    /h2 did not start/,
  );
  t.equal(running, 0, "no start left running when it rejects");
  t.ok(started.length <= 4, `started ${started.length} of 8`);
});

t.test("concurrency: two per CPU, at least four", async (t) => {
  t.equal(startConcurrency(1), 4);
  t.equal(startConcurrency(2), 4);
  t.equal(startConcurrency(8), 16);
});
