// How many device processes the supervisor starts at once. Starting all of a large fabric together on a
// small machine makes every process wait for a CPU at the same time: 24 Node processes loading their
// modules beside other work took longer than a device's start limit each, although none was stuck. A few at
// a time, each gets the CPU it needs and the whole bring-up takes no longer (it is CPU-bound either way).

import { availableParallelism } from "node:os";

/** Devices started together: two per CPU, at least four. */
export function startConcurrency(cpus: number = availableParallelism()): number {
  return Math.max(4, 2 * cpus);
}

/** Runs `start` for every item, at most `limit` at once; rejects with the first failure once none is running. */
export async function startLimited<T>(
  items: readonly T[],
  limit: number,
  start: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const item = items[next++]!;
      try {
        await start(item);
      } catch (e) {
        if (failure === null) failure = e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw failure;
}
