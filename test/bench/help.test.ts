// Every benchmark answers --help with its usage and runs nothing (`npm run bench -- --help` promises it):
// a benchmark runs for minutes, some as root on a live lab, so a user asking what it takes must not start it.
import t from "tap";
import { BENCHMARKS, type BenchmarkName, main } from "../../scripts/bench/index.js";

t.test(
  "every benchmark: --help prints its usage (parsing its options throws on one it does not know)",
  async (t) => {
    for (const name of Object.keys(BENCHMARKS) as BenchmarkName[]) {
      let out = "";
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string | Uint8Array) => {
        out += String(chunk);
        return true;
      }) as typeof process.stdout.write;
      try {
        await main([name, "--help"]);
      } finally {
        process.stdout.write = write;
      }
      t.match(out, /^usage:/, `${name}: prints its usage first`);
    }
  },
);
