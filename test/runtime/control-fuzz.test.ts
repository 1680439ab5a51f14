// The device's socket control channel under abuse, over real TCP: random and adversarial frames before
// the handshake (garbage, lines past the limit, wrong proofs, an old protocol, bytes split anywhere, more
// waiting connections than allowed, a peer that trickles past its deadline) and after it (tampered, replayed,
// reordered, unsealed and oversized messages). Seeded (ROCELAB_FUZZ_SEED replays a run), bounded. Each
// bad connection must be closed with its reason in the device's log, no bad message may reach the device,
// and a good controller must still get its answers afterwards.
import { connect, type Socket } from "node:net";
import t from "tap";
import { createRandom, type Random } from "../../src/device/prng.js";
import { RemoteDevice } from "../../src/lab/live/remote-device.js";
import {
  CONTROL_PROTOCOL,
  newChallenge,
  proof,
  sessionKey,
} from "../../src/runtime/realtime/control-auth.js";
import type { ControlEndpoint } from "../../src/runtime/realtime/control-endpoint.js";
import { parseControlEndpoint } from "../../src/runtime/realtime/control-endpoint.js";
import type { DeviceIdentity } from "../../src/runtime/realtime/protocol.js";
import { SealedLines } from "../../src/runtime/realtime/sealed-lines.js";
import {
  CONTROLLER_LINE_BYTES,
  HANDSHAKE_LINE_BYTES,
  MAX_HANDSHAKES,
  SocketChannel,
} from "../../src/runtime/realtime/socket-channel.js";
import { FUZZ_SEED, fuzzFrames } from "../helpers/fuzz.js";

const TOKEN = Buffer.from("5a".repeat(32));
const IDENTITY: DeviceIdentity = {
  lab: "fuzz",
  node: "leaf1",
  kind: "switch",
  dilation: 1000,
  now: 0,
  startedAt: "2026-01-01T00:00:00.000Z",
};
const ROUNDS = fuzzFrames(150);

/** A raw client: what it received (lines), and when the device closed it. */
interface Raw {
  readonly socket: Socket;
  readonly lines: string[];
  readonly closed: Promise<void>;
  next(): Promise<string>;
}

function raw(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const lines: string[] = [];
    const waiters: ((l: string) => void)[] = [];
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const w = waiters.shift();
        if (w) w(line);
        else lines.push(line);
      }
    });
    socket.on("error", () => {});
    const closed = new Promise<void>((done) => socket.on("close", () => done()));
    const next = (): Promise<string> =>
      lines.length > 0
        ? Promise.resolve(lines.shift()!)
        : new Promise((r, fail) => {
            waiters.push(r);
            void closed.then(() => fail(new Error("closed")));
          });
    socket.once("connect", () => resolve({ socket, lines, closed, next }));
    socket.once("error", reject);
  });
}

/** Connects and passes the handshake: the controller's sealing, ready already read. */
async function session(port: number): Promise<{ c: Raw; seal: SealedLines }> {
  const c = await raw(port);
  const hello = JSON.parse(await c.next()) as { challenge: string };
  const ours = newChallenge();
  c.socket.write(
    `${JSON.stringify({ type: "auth", proof: proof(TOKEN, "controller", hello.challenge), challenge: ours, protocol: CONTROL_PROTOCOL })}\n`,
  );
  const seal = new SealedLines(sessionKey(TOKEN, hello.challenge, ours), "controller");
  const ready = seal.open(await c.next()) as { type: string };
  if (ready.type !== "ready") throw new Error(`expected ready, got ${ready.type}`);
  return { c, seal };
}

function bytes(r: Random, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

/** Writes `data` in random pieces. */
async function trickle(r: Random, s: Socket, data: Buffer): Promise<void> {
  for (let at = 0; at < data.length; ) {
    const n = 1 + r.int(Math.min(64, data.length - at));
    s.write(data.subarray(at, at + n));
    at += n;
    if (r.int(4) === 0) await new Promise((d) => setImmediate(d));
  }
}

t.test("the control channel under random and adversarial frames", async (t) => {
  const log: string[] = [];
  const received: unknown[] = [];
  const channel = await SocketChannel.listen({
    endpoint: { kind: "tcp", host: "127.0.0.1", port: 0 },
    token: TOKEN,
    identity: () => IDENTITY,
    log: (l) => log.push(l),
    handshakeMs: 1500,
  });
  t.teardown(() => channel.close());
  channel.onMessage((m, reply) => {
    received.push(m);
    if (m.type === "command") reply({ type: "reply", id: m.id, result: { echo: m.command } });
  });
  const bound = parseControlEndpoint(channel.address) as ControlEndpoint & { port: number };
  const port = bound.port;
  const r = createRandom(FUZZ_SEED, "control-channel");
  const refusals = (): number => log.filter((l) => l.startsWith("refused")).length;
  let legit = 0;

  // Before the handshake.
  for (let i = 0; i < ROUNDS; i++) {
    const c = await raw(port);
    await c.next(); // the challenge
    const before = refusals();
    const kind = r.int(7);
    if (kind === 0) c.socket.write(Buffer.concat([bytes(r, 1 + r.int(2000)), Buffer.from("\n")]));
    else if (kind === 1)
      c.socket.write(`${JSON.stringify({ type: "command", id: 1, command: { x: r.int(9) } })}\n`);
    else if (kind === 2)
      c.socket.write(
        `${JSON.stringify({ type: "auth", proof: bytes(r, 32).toString("hex"), challenge: newChallenge(), protocol: CONTROL_PROTOCOL })}\n`,
      );
    else if (kind === 3)
      c.socket.write(`${JSON.stringify({ type: "auth", proof: "00", challenge: newChallenge() })}\n`);
    else if (kind === 4)
      await trickle(
        r,
        c.socket,
        Buffer.from(bytes(r, HANDSHAKE_LINE_BYTES + 1 + r.int(3000)).map((b) => (b === 10 ? 11 : b))),
      );
    else if (kind === 5) c.socket.write(Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]));
    else c.socket.write(`${"[".repeat(1 + r.int(3000))}\n`);
    await c.closed;
    t.ok(refusals() > before || c.socket.destroyed, `round ${i} (kind ${kind}): closed`);
  }
  t.ok(
    log.some((l) => /wrong token/.test(l)),
    "wrong proofs: refused",
  );
  t.ok(
    log.some((l) => /speaks control protocol 2 \(sealed messages\), the controller 1/.test(l)),
    "an old controller: refused",
  );
  t.ok(
    log.some((l) => /a line longer than 4096 bytes before the handshake: closing/.test(l)),
    "long lines: refused",
  );
  t.ok(
    log.some((l) => /expected the auth answer to the challenge/.test(l)),
    "garbage: refused",
  );

  // A correct answer cut anywhere still passes (the positive control of the splitter).
  for (let i = 0; i < 20; i++) {
    const c = await raw(port);
    const hello = JSON.parse(await c.next()) as { challenge: string };
    const ours = newChallenge();
    const auth = `${JSON.stringify({ type: "auth", proof: proof(TOKEN, "controller", hello.challenge), challenge: ours, protocol: CONTROL_PROTOCOL })}\n`;
    await trickle(r, c.socket, Buffer.from(auth));
    const seal = new SealedLines(sessionKey(TOKEN, hello.challenge, ours), "controller");
    t.match(seal.open(await c.next()), { type: "ready", identity: IDENTITY });
    c.socket.destroy();
  }

  // After the handshake.
  const reasons = new Set<string>();
  for (let i = 0; i < ROUNDS; i++) {
    const { c, seal } = await session(port);
    const good = seal.seal({ type: "command", id: i, command: { n: i } });
    c.socket.write(`${good}\n`);
    legit++;
    t.match(seal.open(await c.next()), { type: "reply", id: i, result: { echo: { n: i } } });
    const before = refusals();
    const kind = r.int(7);
    let line: string;
    if (kind === 0)
      line = good; // replayed
    else if (kind === 1) {
      seal.seal({ type: "command", id: -1, command: {} }); // skipped: the next one is out of order
      line = seal.seal({ type: "command", id: -2, command: {} });
    } else if (kind === 2) {
      const s = seal.seal({ type: "command", id: -3, command: { v: r.int(100) } });
      const at = 65 + r.int(s.length - 65);
      line = `${s.slice(0, at)}${s[at] === "1" ? "2" : "1"}${s.slice(at + 1)}`; // tampered
    } else if (kind === 3)
      line = JSON.stringify({ type: "command", id: -4, command: {} }); // unsealed
    else if (kind === 4)
      line = bytes(r, 1 + r.int(500))
        .toString("latin1")
        .replaceAll("\n", " ");
    else if (kind === 5) line = `${"0".repeat(64)} ${i + 1} {}`;
    else line = i % 10 === 0 ? `${"x".repeat(CONTROLLER_LINE_BYTES + 1)}` : good;
    c.socket.write(`${line}\n`);
    await c.closed;
    t.ok(refusals() > before, `after the handshake, round ${i} (kind ${kind}): refused and closed`);
    reasons.add(log[log.length - 1]!.replace(/^refused controller [\d.:]+: /, "").replace(/\d+/g, "N"));
  }
  t.same(
    received.filter((m) => (m as { type: string }).type === "command").length,
    legit,
    "only the sealed, in-order messages reached the device",
  );
  t.ok(
    [...reasons].some((x) => /replayed/.test(x)),
    "replays refused",
  );
  t.ok(
    [...reasons].some((x) => /one is missing, or out of order/.test(x)),
    "reordering refused",
  );
  t.ok(
    [...reasons].some((x) => /MAC does not match|not a sealed message/.test(x)),
    "tampering refused",
  );

  // More waiting connections than allowed: the extra one is told so at once.
  const silent = await Promise.all(Array.from({ length: MAX_HANDSHAKES }, () => raw(port)));
  for (const s of silent) await s.next();
  const extra = await raw(port);
  t.match(await extra.next(), /already waiting for their handshake/);
  await extra.closed;
  // They are cut at their deadline (timer or input, whichever comes first).
  silent[0]!.socket.write("{");
  await Promise.all(silent.map((s) => s.closed));
  t.ok(
    log.some((l) => /no handshake within 1\.5 s/.test(l)),
    "the deadline closes silent connections",
  );
  for (let i = 0; i < 50 && channel.waiting > 0; i++) await new Promise((d) => setTimeout(d, 20));
  t.equal(channel.waiting, 0, "no connection left waiting");

  // A peer that keeps the device's loop busy and trickles bytes is still cut at its deadline.
  const busy = await raw(port);
  await busy.next();
  const until = performance.now() + 1600;
  busy.socket.write("{");
  while (performance.now() < until) {} // the device's loop is busy: its timer cannot fire
  busy.socket.write('"type"');
  await busy.closed;
  t.match(log[log.length - 1], /no handshake within 1\.5 s/);

  // After all that, a real controller is served.
  const controller = new RemoteDevice({
    lab: "fuzz",
    node: "leaf1",
    kind: "switch",
    endpoint: bound,
    token: TOKEN,
    dilation: 1000,
    reactionMs: 10,
  });
  await controller.connect(3000);
  t.same(await controller.request({ type: "command", command: { type: "ping" } }), {
    echo: { type: "ping" },
  });
  await controller.stop();
});
