// Device files: what `rocelab device-config` writes is what the supervisor would give each device, it
// validates, survives JSON, and the entrypoint's settings come from flags, then the environment.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { entryOptions, hrtimeEpoch, initFromFile } from "../../../src/lab/live/device-entry.js";
import {
  deviceFiles,
  parseDeviceFile,
  readDeviceFile,
  writeDeviceFiles,
} from "../../../src/lab/live/device-file.js";
import { deviceSetup, liveSlack } from "../../../src/lab/live/device-inits.js";
import { OutputDir } from "../../../src/runtime/realtime/safe-files.js";
import { planAddresses } from "../../../src/scenario/address-plan.js";
import { ConfigError } from "../../../src/scenario/config-error.js";
import { computeRoutes } from "../../../src/scenario/routing.js";
import { SettingsLayers, switchChange } from "../../../src/scenario/settings-layers.js";
import { defaultTopology } from "../../../src/scenario/topology.js";

const topo = defaultTopology();

t.test("one file per node, the supervisor's configuration, valid and JSON-safe", (t) => {
  const dir = t.testdir({});
  const files = deviceFiles(topo, {
    lab: "h1demo",
    dilation: 2000,
    seed: 7,
    reactionMs: 50,
    epochUnixNs: "1700000000000000000",
  });
  const out = OutputDir.create(join(dir, "files"));
  const paths = writeDeviceFiles(out, files);
  out.close();
  t.equal(paths.length, topo.nodes.length);
  const layers = new SettingsLayers(topo, switchChange(liveSlack(2000, 50)));
  const plan = planAddresses(topo);
  const routes = computeRoutes(topo, plan);
  for (const n of topo.nodes) {
    const f = readDeviceFile(join(dir, "files", `${n.name}.json`));
    const setup = deviceSetup(topo, plan, layers, n.name, routes.get(n.name) ?? []);
    t.same(f.config, setup.config, `${n.name}: the configuration a local lab at the same settings gives it`);
    const init = initFromFile(f, 123n);
    t.same(init.ports, setup.ports, `${n.name}: its ports`);
    t.match(init, {
      type: "init",
      lab: "h1demo",
      node: n.name,
      kind: setup.kind,
      epoch: "123",
      dilation: 2000,
      seed: 7,
      reactionMs: 50,
    });
  }
  const leaf1 = readDeviceFile(join(dir, "files", "leaf1.json"));
  t.equal(
    (leaf1.config as { pfc: { headroomSlack: number } }).pfc.headroomSlack,
    25_000,
    "50 ms at dilation 2000 is 25 µs of slack",
  );
  const h1 = readDeviceFile(join(dir, "files", "h1.json"));
  t.match(h1.hostStack, {
    kernelIf: "host0",
    nicIf: "nic0",
    ip: "10.1.0.1",
    gateway: "10.1.0.0",
    routes: ["10.1.0.0/16", "10.0.0.0/16"],
  });
  t.equal(h1.mtu, 4224, "path MTU 4096 + 128");
  t.equal(
    h1.ports.find((p) => p.ifname === "nic0")?.mac,
    undefined,
    "the host pair's NIC side keeps its own MAC",
  );
  t.end();
});

t.test("problems name the file, the path and what is allowed", (t) => {
  const [leaf1] = deviceFiles(topo, { lab: "h1demo", dilation: 1000, seed: 1 }).filter(
    (f) => f.node === "leaf1",
  );
  const h1 = deviceFiles(topo, { lab: "h1demo", dilation: 1000, seed: 1 }).find((f) => f.node === "h1")!;
  const bad = (name: string, f: unknown): string => {
    try {
      parseDeviceFile(name, JSON.stringify(f, null, 2));
    } catch (e) {
      if (e instanceof ConfigError) return e.message;
      throw e;
    }
    return "(no error)";
  };
  t.match(bad("a.json", { ...leaf1, format: "rocelab-device/9" }), /a\.json:\d+:\d+: format: /);
  t.match(
    bad("a.json", { ...leaf1, ports: [{ ...leaf1!.ports[0], mac: "02:00" }] }),
    /ports\[0\]\.mac: .*a MAC address such as 02:00:00:01:01:00/,
  );
  t.match(
    bad("a.json", { ...leaf1, ports: [{ ...leaf1!.ports[0], ifname: "an-interface-name-too-long" }] }),
    /ports\[0\]\.ifname: .*1-15 letters/,
  );
  t.match(
    bad("a.json", { ...leaf1, ports: leaf1!.ports.slice(1) }),
    /config\.ports: a switch configuration with the 5 ports listed in ports/,
  );
  t.match(
    bad("a.json", { ...leaf1, node: "leaf2" }),
    /config\.name: the configuration is for "leaf1", not leaf2/,
  );
  t.match(bad("a.json", { ...h1, hostStack: undefined }), /hostStack: a NIC needs its host stack/);
  t.match(bad("a.json", { ...leaf1, hostStack: h1.hostStack }), /hostStack: only a NIC has a host stack/);
  t.match(bad("a.json", { ...leaf1, dilaton: 3 }), /unknown key "dilaton"/);
  t.end();
});

t.test("the entrypoint's settings: flags, then the environment; a TCP port needs a good token", (t) => {
  const dir = t.testdir({ token: `${"e9".repeat(32)}\n`, weak: "short\n" });
  chmodSync(join(dir, "token"), 0o600);
  chmodSync(join(dir, "weak"), 0o600);
  const out = OutputDir.existing(dir);
  writeDeviceFiles(out, deviceFiles(topo, { lab: "h1demo", dilation: 1000, seed: 1, epochUnixNs: "5" }));
  out.close();
  const config = join(dir, "leaf1.json");
  const token = join(dir, "token");
  const fromEnv = entryOptions({}, { ROCELAB_DEVICE_CONFIG: config, ROCELAB_CONTROL_TOKEN_FILE: token });
  t.same(fromEnv.control, { kind: "tcp", host: "127.0.0.1", port: 7700 }, "default: loopback only");
  t.equal(fromEnv.epochUnixNs, "5", "the file's epoch");
  t.equal(fromEnv.prepare, true);
  const json = entryOptions(
    { control: "unix:/run/x.sock", epochUnixNs: "9", prepare: false },
    { ROCELAB_DEVICE_CONFIG_JSON: readFileSync(config, "utf8"), ROCELAB_CONTROL: "tcp://1.2.3.4:1" },
  );
  t.same(json.control, { kind: "unix", path: "/run/x.sock" }, "the flag wins over the environment");
  t.equal(json.token, null, "a Unix socket may go without a token");
  t.equal(json.epochUnixNs, "9");
  t.equal(json.prepare, false);
  t.throws(() => entryOptions({}, {}), /no device file: give --config FILE/, "no device file");
  t.throws(() => entryOptions({ config }, {}), /is a TCP port: give --token-file FILE/);
  t.throws(
    () => entryOptions({ config, tokenFile: join(dir, "weak") }, {}),
    /--token-file: token file .* holds 5 bytes/,
  );
  t.throws(
    () => entryOptions({ config, tokenFile: token, control: "tcp://x" }, {}),
    /--control: "tcp:\/\/x" is not/,
  );
  t.throws(() => entryOptions({ config, tokenFile: token, waitPorts: "soon" }, {}), /--wait-ports "soon"/);
  writeFileSync(join(dir, "broken.json"), "{ not json");
  t.throws(
    () => entryOptions({ config: join(dir, "broken.json"), tokenFile: token }, {}),
    /broken\.json:\d+:\d+: .*not valid YAML/,
  );
  t.end();
});

t.test("a wall-clock epoch becomes this process's monotonic epoch", (t) => {
  const lines: string[] = [];
  const wallNow = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  const hr = process.hrtime.bigint();
  const e = hrtimeEpoch((wallNow - 3_000_000_000n).toString(), (l) => lines.push(l));
  const since = Number(hr - e);
  t.ok(since > 2.9e9 && since < 3.1e9, `3 s ago is 3 s before now on the monotonic clock (${since} ns)`);
  const future = hrtimeEpoch((wallNow + 60_000_000_000n).toString(), (l) => lines.push(l));
  t.ok(future >= hr, "an epoch in the future counts from now");
  t.match(lines.join("\n"), /in the future \(clock skew\?\): counting from now/);
  t.end();
});
