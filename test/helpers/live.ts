// Helpers for live tests: root check, bring-up with a clear failure, and finding what a lab left behind.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { execa } from "execa";
import tap, { type Test } from "tap";
import type { AnyDeviceStats } from "../../src/lab/device-stats.js";
import { LiveLab } from "../../src/lab/live/live-lab.js";
import { findLabProcesses } from "../../src/lab/live/provision.js";
import type { NicStats } from "../../src/nic/stats-types.js";
import { ensureBuilt } from "./built.js";

/** Live tests need root; CI runs as root, so a non-root run fails loudly instead of skipping. */
export function requireRoot(t: Test): void {
  if (process.getuid?.() !== 0) {
    t.fail("live tests need root (network namespaces, veth, raw sockets): run `sudo npm test`");
    t.end();
  }
}

const guarded = new Set<string>();

/**
 * Makes sure `lab` goes even if this test process is killed: tap's timeout sends SIGALRM and, a second
 * later, SIGKILL, too soon for a teardown. A detached shell waits for this process to end and then runs
 * netns/cleanup for the lab (needs neither Node nor the build; harmless when the lab is already gone).
 * Lab names are unique per test file, so it never takes a later file's lab.
 */
export function guardLab(lab: string): void {
  if (guarded.has(lab)) return;
  guarded.add(lab);
  const wait = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec "$2" "$3" >/dev/null 2>&1';
  const reaper = spawn(
    "bash",
    ["-c", wait, "rocelab-test-reaper", String(process.pid), join(process.cwd(), "netns", "cleanup"), lab],
    { detached: true, stdio: "ignore" },
  );
  reaper.unref();
}

/**
 * The compiled `rocelab` (what `sudo npm run rocelab` runs): live tests make many calls, and a TypeScript
 * loader per call would dominate their time. env(1) keeps the test runner's NODE_OPTIONS away from it.
 */
export async function rl(args: readonly string[], timeoutMs = 120_000) {
  await ensureBuilt();
  return rlStarted(args, timeoutMs);
}

/** Starts the compiled `rocelab` and returns the running process (call `rl` once first, to build). */
export function rlStarted(args: readonly string[], timeoutMs = 120_000) {
  return execa("env", ["-u", "NODE_OPTIONS", process.execPath, "dist/bundle/main/cli.js", ...args], {
    reject: false,
    timeout: timeoutMs,
  });
}

export async function upLab(
  t: Test,
  lab: string,
  topology?: string,
  extra: readonly string[] = [],
): Promise<void> {
  await ensureBuilt();
  guardLab(lab);
  const r = await rl(["up", ...(topology ? [topology] : []), "--name", lab, ...extra]);
  if (r.exitCode !== 0) throw new Error(`rocelab up --name ${lab} failed (${r.exitCode}): ${r.stderr}`);
  t.pass(`lab ${lab} is up`);
}

/** One control connection per lab, kept for the test file's run: polling through a new `rocelab stats`
 * process each time cost a Node start (about a second of CPU on a busy lab) per read. `rocelab stats` itself
 * is tested where its output is the point (attach-unix, lab). */
const controls = new Map<string, Promise<LiveLab>>();
let closing = false;

function control(lab: string): Promise<LiveLab> {
  let c = controls.get(lab);
  if (c === undefined) {
    c = LiveLab.connect(lab);
    controls.set(lab, c);
    c.then(
      (l) => l.onClose(() => controls.delete(lab)),
      () => controls.delete(lab),
    );
    if (!closing) {
      closing = true;
      tap.teardown(async () => {
        for (const open of controls.values()) await (await open.catch(() => null))?.close();
        controls.clear();
      });
    }
  }
  return c;
}

/** A device's stats, as `rocelab stats NODE --json` prints them (through the lab's control channel). */
export async function statsOf(lab: string, node: string): Promise<AnyDeviceStats> {
  await ensureBuilt();
  const ask = async () =>
    (await (await control(lab)).request<{ stats: AnyDeviceStats }>("stats", { node })).stats;
  try {
    return await ask();
  } catch {
    // The lab was taken down and brought up again since: one fresh connection.
    await (await controls.get(lab)?.catch(() => null))?.close();
    controls.delete(lab);
    return ask();
  }
}

/** The stats of a host's NIC (fails if `node` is not a NIC). */
export async function nicStatsOf(lab: string, node: string): Promise<NicStats> {
  const s = await statsOf(lab, node);
  if (s.kind !== "nic") throw new Error(`${node} is a ${s.kind}, not a NIC`);
  return s;
}

export async function labNamespaces(lab: string): Promise<string[]> {
  const { stdout } = await execa("ip", ["netns", "list"]);
  return stdout
    .split("\n")
    .map((l) => l.split(" ")[0]!)
    .filter((n) => n.startsWith(`rl-${lab}-`));
}

export function labProcesses(lab: string): number[] {
  return findLabProcesses(lab).map((p) => p.pid);
}

/**
 * Reads `read` until `ok` holds or `ms` of real time pass, and returns the last value read. The bound is a
 * safety net, not a pass/fail criterion: the caller asserts on the value.
 */
export async function pollUntil<T>(
  read: () => Promise<T> | T,
  ok: (v: T) => boolean,
  ms = 20_000,
  stepMs = 200,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
