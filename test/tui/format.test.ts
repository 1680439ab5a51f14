// Fixed-width text helpers of the dashboard.
import t from "tap";
import {
  bar,
  formatAlpha,
  formatBps,
  formatCount,
  formatEmulated,
  formatPercent,
  level,
  padLeft,
  padRight,
  sparkline,
  splitEndpoint,
  truncate,
} from "../../src/tui/format.js";

t.test("truncate and pad keep exact widths", async (t) => {
  t.equal(truncate("leaf1:eth1", 20), "leaf1:eth1");
  t.equal(truncate("leaf1:eth1", 6), "leaf1…");
  t.equal(truncate("abc", 1), "…");
  t.equal(truncate("abc", 0), "");
  t.equal(padRight("up", 5), "up   ");
  t.equal(padLeft("97%", 5), "  97%");
  t.equal(padLeft("123456", 4), "123…");
});

t.test("numbers in operator units", async (t) => {
  t.equal(formatPercent(0.973), "97%");
  t.equal(formatPercent(1.2), "100%", "clamped");
  t.equal(formatPercent(null), "-");
  t.equal(formatBps(57.5e9), "57.5G");
  t.equal(formatBps(57.98e9), "58G", "three significant digits at most");
  t.equal(formatBps(0), "0");
  t.equal(formatBps(null), "-");
  t.equal(formatCount(621), "621");
  t.equal(formatCount(12_345), "12.3k");
  t.equal(formatCount(4_500_000), "4.5M");
  t.equal(formatAlpha(0.0813), ".081");
  t.equal(formatAlpha(1), "1.000");
  t.equal(formatAlpha(0), "0");
  t.equal(formatAlpha(0.000116), "1e-4", "small α by its order of magnitude");
});

t.test("emulated time at µs resolution", async (t) => {
  t.equal(formatEmulated(842_117), "842.117us");
  t.equal(formatEmulated(13_845_616), "13.846ms");
  t.equal(formatEmulated(12_345_678_912), "12.345679s");
});

t.test("bars and sparklines", async (t) => {
  t.equal(bar(0.5, 10), "█████░░░░░");
  t.equal(bar(0.001, 10), "█░░░░░░░░░", "any use shows");
  t.equal(bar(0, 4), "░░░░");
  t.equal(bar(Number.NaN, 3), "░░░");
  t.equal(level(0), " ");
  t.equal(level(1), "█");
  t.equal(level(0.01), "▁");
  t.equal(sparkline([0, 0.5, 1], 5, 1), "   ▅█", "newest in the last column, zero blank");
  t.equal(sparkline([1, 2, 3, 4, 5, 6], 3), "▆▇█", "the last width values, scaled to the largest");
  t.equal(sparkline([], 3), "   ");
});

t.test("endpoints", async (t) => {
  t.same(splitEndpoint("leaf2:eth6"), { node: "leaf2", port: 6 });
  t.same(splitEndpoint("h10:eth1"), { node: "h10", port: 1 });
});
