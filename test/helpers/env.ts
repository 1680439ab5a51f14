// Environment variables a test changes, put back as they were when the test ends.

/** Saves `name` now and restores it (or deletes it, if it was unset) at `t`'s teardown. */
export function restoreEnvAfter(t: { teardown(fn: () => void): void }, name: string): void {
  const saved = process.env[name];
  t.teardown(() => {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  });
}
