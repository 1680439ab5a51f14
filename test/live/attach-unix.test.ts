// `rocelab attach` over Unix sockets without a token (the file system protects them), on a small fabric
// of namespaces made by hand with devices from the entrypoint: the CLI's commands on the attachment, a
// device that goes away and comes back, the dashboard (`tui --attach`, without a terminal) on a running
// attachment, and `down` that leaves the devices running. Needs root; everything carries the h1ux prefix.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { LiveLab } from "../../src/lab/live/live-lab.js";
import { labNamespaces, nicStatsOf, pollUntil, requireRoot, rl, rlStarted } from "../helpers/live.js";
import { nodeNs, removeSplit } from "../helpers/split-hosts.js";

requireRoot(t);

const LAB = "h1ux";
const ATTACH = "h1uxat";
const NODES = ["sw", "a", "b"];
const TOPOLOGY =
  'name: pair\nnodes:\n  sw: { kind: switch }\n  a: { kind: host }\n  b: { kind: host }\nlinks:\n  - ["a:eth1", "sw:eth1"]\n  - ["b:eth1", "sw:eth2"]\n';
// Unix socket paths are short (sun_path): not under the test's fixture directory.
const sockets = mkdtempSync(join(tmpdir(), "rl-h1ux-"));
const devices = new Map<string, ReturnType<typeof start>>();

t.teardown(async () => {
  for (const d of devices.values()) d.kill("SIGTERM");
  await Promise.allSettled(devices.values());
  await rl(["down", "--name", ATTACH]);
  await removeSplit(LAB);
  rmSync(sockets, { recursive: true, force: true });
});

function start(node: string, dir: string) {
  return execa(
    "ip",
    [
      "netns",
      "exec",
      nodeNs(LAB, node),
      "env",
      "-u",
      "NODE_OPTIONS",
      "-u",
      "NODE_V8_COVERAGE",
      `ROCELAB_NODE=${process.execPath}`,
      "bin/device-entrypoint",
      "--config",
      join(dir, `${node}.json`),
      "--control",
      `unix:${join(sockets, `${node}.sock`)}`,
    ],
    {
      reject: false,
      stdin: "ignore",
      stdout: "ignore",
      stderr: { file: join(dir, `${node}.log`), append: true },
    },
  );
}

async function statusOf(node: string): Promise<string | undefined> {
  const s = JSON.parse((await rl(["status", "--json", "--name", ATTACH])).stdout) as {
    devices: { node: string; status: string }[];
  };
  return s.devices.find((d) => d.node === node)?.status;
}

/** Polls until `node` has `status` (a bound on waiting, not on speed). */
async function until(node: string, status: string): Promise<string | undefined> {
  let now: string | undefined;
  for (let i = 0; i < 30; i++) {
    now = await statusOf(node);
    if (now === status) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return now;
}

t.test("attach over Unix sockets: commands, a device that restarts, the dashboard, down", async (t) => {
  t.same(await labNamespaces(LAB), [], "no leftovers of an earlier run");
  const dir = t.testdir({ "pair.yaml": TOPOLOGY });
  for (const n of NODES) await execa("ip", ["netns", "add", nodeNs(LAB, n)]);
  for (const [host, port] of [
    ["a", 1],
    ["b", 2],
  ] as const) {
    await execa("ip", [
      "link",
      "add",
      "eth1",
      "netns",
      nodeNs(LAB, host),
      "type",
      "veth",
      "peer",
      "name",
      `eth${port}`,
      "netns",
      nodeNs(LAB, "sw"),
    ]);
  }
  const made = await rl([
    "device-config",
    join(dir, "pair.yaml"),
    "--out",
    dir,
    // The directory holds the topology already.
    "--force",
    "--lab",
    LAB,
    "--epoch",
    "now",
  ]);
  t.equal(made.exitCode, 0, made.stderr);
  for (const n of NODES) devices.set(n, start(n, dir));
  const endpoints = join(dir, "endpoints.json");
  writeFileSync(
    endpoints,
    JSON.stringify({
      topology: "pair.yaml",
      dilation: 1000,
      lab: LAB,
      devices: Object.fromEntries(NODES.map((n) => [n, `unix:${join(sockets, `${n}.sock`)}`])),
    }),
  );
  const attached = await rl(["attach", "--endpoints", endpoints, "--name", ATTACH]);
  t.equal(attached.exitCode, 0, `attach, JSON endpoints, no token ${attached.stderr}`);

  const text = await rl(["status", "--name", ATTACH]);
  t.equal(text.exitCode, 0, text.stderr);
  t.match(text.stdout, /running/, "status reads as for any lab");
  const ping = await execa(
    "ip",
    ["netns", "exec", nodeNs(LAB, "a"), "ping", "-c", "2", "-W", "5", "10.1.0.3"],
    {
      reject: false,
    },
  );
  t.equal(ping.exitCode, 0, "a's kernel pings b's through the NICs and the switch");

  const incast = await rl([
    "inject",
    "incast",
    "--to",
    "b",
    "--from",
    "1",
    "--size",
    "1MB",
    "--wait",
    "60",
    "--name",
    ATTACH,
  ]);
  t.equal(incast.exitCode, 0, incast.stderr);
  const client = await LiveLab.connect(ATTACH);
  const s = (
    await client.request<{ stats: { kind: string; detail: { qps: { bytesDelivered: number }[] } } }>(
      "stats",
      {
        node: "b",
      },
    )
  ).stats;
  await client.close();
  const delivered = s.detail.qps.reduce((x, q) => x + q.bytesDelivered, 0);
  t.equal(delivered, 1_000_000, "the WRITE arrived over the attached fabric");

  t.equal((await rl(["inject", "link-down", "sw:eth2", "--name", ATTACH])).exitCode, 0);
  const links = JSON.parse((await rl(["status", "--json", "--name", ATTACH])).stdout) as {
    links: { b: string; up: boolean }[];
  };
  t.equal(links.links.find((l) => l.b === "sw:eth2")?.up, false, "the link is down");
  t.equal((await rl(["inject", "link-up", "sw:eth2", "--name", ATTACH])).exitCode, 0);

  // The engine restarts b: the attachment notices, retries, and says the device came back afresh.
  const b = devices.get("b")!;
  b.kill("SIGTERM");
  t.equal((await b).exitCode, 0, "b stopped on SIGTERM");
  t.equal(await until("b", "unreachable"), "unreachable", "b is unreachable while it is gone");
  devices.set("b", start("b", dir));
  t.equal(await until("b", "running"), "running", "and running again once it is back");
  const log = await LiveLab.connect(ATTACH);
  const events = JSON.stringify(await log.request("events", { limit: 50 }));
  await log.close();
  t.match(events, /control connection to unix:.*b\.sock lost/, "the event log says it was lost");
  t.match(events, /is back \(the device restarted at /, "and that it came back with fresh counters");
  t.equal((await nicStatsOf(ATTACH, "b")).detail.qps.length, 0, "b's QPs went with its process");

  // The dashboard without a terminal, on the running attachment: summary lines, and it leaves it running.
  // Stopped once it has printed its title and summary notice (the bound only limits the wait).
  const tui = rlStarted(["tui", "--attach", endpoints, "--name", ATTACH]);
  let printed = "";
  tui.stdout?.on("data", (chunk: Buffer) => {
    printed += chunk.toString();
  });
  await pollUntil(
    () => printed,
    (out) => /attached to pair/.test(out) && /no terminal: printing a summary/.test(out),
    60_000,
    100,
  );
  tui.kill("SIGTERM");
  const ended = await tui;
  t.match(
    ended.stdout,
    /attached to pair \(3 devices, dilation 1000\)/,
    `the dashboard's title ${ended.stderr}`,
  );
  t.match(ended.stdout, /no terminal: printing a summary/);
  t.equal(await statusOf("sw"), "running", "the attachment outlived the dashboard it did not start");

  const down = await rl(["down", "--name", ATTACH]);
  t.equal(down.exitCode, 0, down.stderr);
  t.match(down.stdout, /lab h1uxat is down \(1 processes stopped, 0 namespaces removed\)/);
  for (const [n, d] of devices) t.equal(d.exitCode, null, `${n} runs on after the attachment went`);
});
