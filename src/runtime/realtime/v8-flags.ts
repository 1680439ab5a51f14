// The V8 flags every live device process runs with: the lab's (lab/live/device-process.ts) and a device
// container's (bin/device-entrypoint, which repeats them: a shell script cannot import this file, and
// test/lab/device-args.test.ts checks that the two agree).
//
// --max-semi-space-size=1 (MiB; Node 20's default lets the young generation grow to 16 MiB semi-spaces).
// A switch forwarding 100-150 k full-size frames/s grew its young generation to the maximum; its old
// generation is small (10-12 MiB live), and V8 starts incremental marking as soon as the old generation's
// headroom is smaller than the young generation's capacity — after every full collection, again. `--trace-gc`
// counted 194-198 mark-compacts in a 100 k + 150 k run (~40 a second, each ~6 ms with its marking steps)
// and 7-10 with 1 MiB semi-spaces (1,250 scavenges instead of 140-150, each cheap: a device's garbage dies
// young). Switch CPU per forwarded frame at 150 k/s: 6.97-7.33 µs -> 3.73-4.40 µs; the switch lossless at
// 200 k and 250 k frames/s (was 13-15 % lost at 200 k). CHANGELOG.md (2026-12-05) has the runs.
export const DEVICE_V8_FLAGS: readonly string[] = ["--max-semi-space-size=1"];
