// A device's socket control channel and the controller's side of it, over real sockets: the token
// handshake both ways, the identity check, requests and pushed events, refusals, and a controller that
// finds the device again after it went away.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { RemoteDevice } from "../../src/lab/live/remote-device.js";
import type { ControlEndpoint } from "../../src/runtime/realtime/control-endpoint.js";
import { formatControlEndpoint, parseControlEndpoint } from "../../src/runtime/realtime/control-endpoint.js";
import type { DeviceIdentity, TimedEvent } from "../../src/runtime/realtime/protocol.js";
import { SocketChannel } from "../../src/runtime/realtime/socket-channel.js";

const TOKEN = Buffer.from("c7".repeat(32));
const IDENTITY: DeviceIdentity = {
  lab: "h1demo",
  node: "leaf1",
  kind: "switch",
  dilation: 1000,
  now: 5000,
  startedAt: "2026-01-01T00:00:00.000Z",
};

/** A device end that answers commands by echoing them (the device runtime is not what is tested here). */
async function device(
  endpoint: ControlEndpoint,
  token: Buffer | null,
  identity = IDENTITY,
  log: string[] = [],
) {
  const channel = await SocketChannel.listen({
    endpoint,
    token,
    identity: () => identity,
    log: (l) => log.push(l),
  });
  channel.onMessage((m, reply) => {
    if (m.type === "command") reply({ type: "reply", id: m.id, result: { echo: m.command } });
  });
  return channel;
}

function controller(
  endpoint: ControlEndpoint,
  token: Buffer | null,
  over: Partial<{ node: string; dilation: number }> = {},
) {
  return new RemoteDevice({
    lab: "h1demo",
    node: over.node ?? "leaf1",
    kind: "switch",
    endpoint,
    token,
    dilation: over.dilation ?? 1000,
    reactionMs: 10,
  });
}

t.test("endpoints as operators write them", (t) => {
  t.same(parseControlEndpoint("tcp://172.20.20.2:7700"), { kind: "tcp", host: "172.20.20.2", port: 7700 });
  t.same(parseControlEndpoint("tcp://[fd00::2]:7700"), { kind: "tcp", host: "fd00::2", port: 7700 });
  t.same(parseControlEndpoint("unix:/run/x.sock"), { kind: "unix", path: "/run/x.sock" });
  t.same(parseControlEndpoint("unix:///run/x.sock"), { kind: "unix", path: "/run/x.sock" });
  t.match(parseControlEndpoint("tcp://host:99999"), /port 99999 is not 1-65535/);
  t.match(parseControlEndpoint(`unix:/${"x".repeat(120)}`), /at most 107 bytes \(sun_path\), this one 121/);
  t.match(parseControlEndpoint("http://host:1"), /is not tcp:\/\/HOST:PORT or unix:PATH/);
  t.equal(formatControlEndpoint({ kind: "tcp", host: "fd00::2", port: 1 }), "tcp://[fd00::2]:1");
  t.end();
});

t.test("the token handshake, requests and events", async (t) => {
  const endpoint: ControlEndpoint = { kind: "tcp", host: "127.0.0.1", port: 0 };
  const log: string[] = [];
  const channel = await device(endpoint, TOKEN, IDENTITY, log);
  t.teardown(() => channel.close());
  const bound = parseControlEndpoint(channel.address) as ControlEndpoint;
  t.equal(bound.kind, "tcp");
  // Raised before anyone listened: kept for the first controller.
  const early: TimedEvent = { t: 1, kind: "info", detail: "before any controller" };
  channel.broadcast({ type: "events", events: [early] });

  const c = controller(bound, TOKEN);
  const events: TimedEvent[] = [];
  c.on("events", (e) => events.push(...e));
  await c.connect(5000);
  t.equal(c.status, "running");
  t.equal(c.pid, process.pid, "the device's pid");
  t.same(c.identity, IDENTITY, "who the device is");
  t.same(await c.request({ type: "command", command: { type: "ping" } }), { echo: { type: "ping" } });
  channel.broadcast({ type: "events", events: [{ t: 2, kind: "info", detail: "later" }] });
  await new Promise((r) => setTimeout(r, 100));
  t.same(
    events.map((e) => e.detail),
    ["before any controller", "later"],
    "the backlog, then pushed events",
  );
  t.match(log.join("\n"), /controller 127\.0\.0\.1:\d+ connected/);
  await c.stop();
});

t.test("refusals say why", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "rl-sock-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const withToken = await device({ kind: "unix", path: join(dir, "t.sock") }, TOKEN);
  const without = await device({ kind: "unix", path: join(dir, "n.sock") }, null);
  t.teardown(() => {
    withToken.close();
    without.close();
  });
  const wrong = controller({ kind: "unix", path: join(dir, "t.sock") }, Buffer.from("d8".repeat(32)));
  await t.rejects(wrong.connect(3000), /the device refused the connection: wrong token/, "a wrong token");
  const none = controller({ kind: "unix", path: join(dir, "t.sock") }, null);
  await t.rejects(none.connect(3000), /the device asks for a token/, "no token for a device that wants one");
  const impostor = controller({ kind: "unix", path: join(dir, "n.sock") }, TOKEN);
  await t.rejects(
    impostor.connect(3000),
    /did not prove it holds the token/,
    "a device that cannot prove the token",
  );
  const other = controller({ kind: "unix", path: join(dir, "t.sock") }, TOKEN, { node: "leaf2" });
  await t.rejects(
    other.connect(3000),
    /this is switch leaf1 of lab h1demo, not switch leaf2: check the endpoints file/,
  );
  const slow = controller({ kind: "unix", path: join(dir, "t.sock") }, TOKEN, { dilation: 2000 });
  await t.rejects(slow.connect(3000), /runs at dilation 1000, the endpoints file says 2000/);
  const open = controller({ kind: "unix", path: join(dir, "n.sock") }, null);
  await open.connect(3000);
  t.equal(open.status, "running", "a Unix socket without a token, when neither side has one");
  await open.stop();
  await t.rejects(
    SocketChannel.listen({
      endpoint: { kind: "tcp", host: "127.0.0.1", port: 0 },
      token: null,
      identity: () => IDENTITY,
      log: () => {},
    }),
    /needs a token file: anyone who reaches the port could drive the device/,
    "no TCP port without a token",
  );
});

t.test("a device that goes away is unreachable, and found again", async (t) => {
  // Unix socket paths are short (108 bytes): not under the test's long fixture directory.
  const dir = mkdtempSync(join(tmpdir(), "rl-sock-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "d.sock");
  let channel = await device({ kind: "unix", path }, TOKEN);
  const c = controller({ kind: "unix", path }, TOKEN);
  const exits: string[] = [];
  const notes: string[] = [];
  c.on("exit", (status) => exits.push(status));
  c.on("note", (n) => notes.push(n));
  await c.connect(3000);
  channel.close();
  await new Promise((r) => setTimeout(r, 200));
  t.same(exits, ["unreachable"]);
  t.equal(c.status, "unreachable");
  t.match(c.exitDetail(), /control connection to unix:.*d\.sock lost/);
  await t.rejects(c.request({ type: "stats" }), /leaf1 is unreachable/);
  channel = await device({ kind: "unix", path }, TOKEN, {
    ...IDENTITY,
    startedAt: "2026-01-01T00:01:00.000Z",
  });
  t.teardown(() => channel.close());
  for (let i = 0; i < 50 && c.status !== "running"; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal(c.status, "running", "reconnected");
  t.match(
    notes.join("\n"),
    /is back \(the device restarted at 2026-01-01T00:01:00\.000Z: its counters start from zero\)/,
  );
  await c.stop();
});
