// The live lab in real network namespaces: real processes, real veth, real frames. Needs root (CI runs as
// root); every lab it creates is torn down, also when an assertion fails.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import type { SyncStats } from "../../src/runtime/realtime/clock.js";
import { checkCapture } from "../../src/verify/pcap-check.js";
import { cpuHog } from "../helpers/hog.js";
import { labNamespaces, labProcesses, nicStatsOf, requireRoot, rl, statsOf, upLab } from "../helpers/live.js";

requireRoot(t);

const LAB = "ltest";
const teardowns: string[] = [];
t.teardown(async () => {
  for (const lab of teardowns) await rl(["down", "--name", lab]);
});

t.test(
  "the default lab: ping, incast, PFC and ECN on the wire, trace, link failure, a killed switch",
  async (t) => {
    teardowns.push(LAB);
    // On a busy machine: the lab must stay lossless with a CPU hog beside it (synced clocks slow it down
    // instead), and say what that cost.
    cpuHog(t);
    await upLab(t, LAB);

    // Ordinary tools on a host's kernel work across the fabric.
    const ping = await execa(
      "ip",
      ["netns", "exec", `rl-${LAB}-h1`, "ping", "-c", "3", "-W", "5", "10.1.0.15"],
      { reject: false },
    );
    t.equal(ping.exitCode, 0, "h1 pings h8 through leaf1, a spine and leaf2");
    t.match(ping.stdout, /3 received/);
    t.notMatch(ping.stdout, /DUP/, "no duplicate replies: the kernel hears the wire only through the NIC");

    // Small thresholds so a short incast meets both ECN and PFC.
    t.equal((await rl(["inject", "preset", "aggressive", "--name", LAB])).exitCode, 0);
    const dir = t.testdir({});
    const captures = [
      { at: "leaf2:eth1", file: join(dir, "leaf2-eth1.pcap") },
      { at: "leaf2:eth6", file: join(dir, "leaf2-eth6.pcap") },
    ];
    const capturing = captures.map((c) =>
      rl(["capture", c.at, "-w", c.file, "--seconds", "6", "--name", LAB]),
    );
    await new Promise((r) => setTimeout(r, 800));
    const size = 4_000_000;
    const incast = await rl([
      "inject",
      "incast",
      "--to",
      "h8",
      "--from",
      "4",
      "--size",
      String(size),
      // Starting a workload only posts it: wait for the four completions (emulated time on a busy machine
      // runs slower than the captures' real seconds).
      "--wait",
      "90",
      "--name",
      LAB,
    ]);
    t.equal(incast.exitCode, 0, incast.stderr);
    t.match(incast.stdout, /all 4 flows completed/);
    for (const c of await Promise.all(capturing)) t.equal(c.exitCode, 0, c.stderr);

    // Every byte delivered exactly once, nothing lost in the lossless class.
    const h8 = await nicStatsOf(LAB, "h8");
    const delivered = h8.detail.qps.reduce((a, q) => a + q.bytesDelivered, 0);
    t.equal(delivered, 4 * size, "h8 received every byte of the four 4 MB WRITEs");
    for (const h of ["h1", "h2", "h3", "h4"]) {
      const flows = (await nicStatsOf(LAB, h)).detail.flows;
      t.equal(flows.length, 1, `${h}'s WRITE completed`);
    }
    let lossless = 0;
    const where: string[] = [];
    for (const sw of ["leaf1", "leaf2", "spine1", "spine2"]) {
      const s = await statsOf(LAB, sw);
      lossless += s.counters.dropped_lossless!;
      const peaks = s.ports.map(
        (p) => `${p.name} ${p.counters.pg3_headroom_peak_bytes}/${p.counters.headroom_bytes}`,
      );
      where.push(`${sw}: ${s.counters.dropped_lossless} dropped, PG3 headroom peak/size ${peaks.join(", ")}`);
    }
    // What the busy machine cost is reported, per device: how long its clock was held for its neighbours.
    const clocks = JSON.parse((await rl(["status", "--json", "--name", LAB])).stdout) as {
      devices: { node: string; health: { sync?: SyncStats } | null }[];
    };
    // On a failure, the synchronisation of every device says where the clocks let a frame through late.
    const sync = clocks.devices.map((d) => {
      const s = d.health?.sync;
      return s
        ? `${d.node} ${s.holds}/${s.graceExceeded}/${s.worstSilenceMs.toFixed(1)}/${s.unstamped}`
        : `${d.node} -`;
    });
    t.equal(
      lossless,
      0,
      `zero lossless drops (${where.join("; ")}; holds/silent>grace/worst ms/unstamped: ${sync.join(", ")})`,
    );
    t.equal(clocks.devices.length, 12);
    for (const d of clocks.devices) {
      t.ok(
        d.health?.sync !== undefined && d.health.sync.heldNs >= 0 && d.health.sync.holds >= 0,
        `${d.node} reports its synced clock (held ${d.health?.sync?.heldNs} ns, ${d.health?.sync?.holds} holds)`,
      );
    }
    // The dilation changes while the lab runs (`rocelab dilation`), at one real instant for every process:
    // the dilated real clock (the lab's now plus how far it is behind) then advances real / 4000.
    const clockNow = async () => {
      const s = JSON.parse((await rl(["status", "--json", "--name", LAB])).stdout) as {
        dilation: number;
        now: number;
        behindNs: number;
      };
      return { ...s, free: s.now + s.behindNs, real: performance.now() };
    };
    t.equal((await rl(["dilation", "4000", "--name", LAB])).exitCode, 0);
    await new Promise((r) => setTimeout(r, 200));
    const d0 = await clockNow();
    t.equal(d0.dilation, 4000, "rocelab dilation 4000 took effect");
    await new Promise((r) => setTimeout(r, 1000));
    const d1 = await clockNow();
    const expected = ((d1.real - d0.real) * 1e6) / 4000;
    t.ok(
      Math.abs(d1.free - d0.free - expected) < 0.1 * expected,
      `the dilated clock advanced ${d1.free - d0.free} ns in ${Math.round(d1.real - d0.real)} ms real (expected ${Math.round(expected)})`,
    );
    t.ok(d1.now > d0.now, "emulated time goes on");
    t.equal((await rl(["dilation", "1000", "--name", LAB])).exitCode, 0);
    t.ok(h8.counters.np_cnp_sent! > 0, `h8 sent CNPs (${h8.counters.np_cnp_sent})`);
    let handled = 0;
    for (const h of ["h1", "h2", "h3", "h4"]) handled += (await statsOf(LAB, h)).counters.rp_cnp_handled!;
    t.ok(handled > 0, `the senders handled CNPs (${handled})`);
    // `rocelab clear-counters h8` (a lab action): h8's counters start from zero again, the senders' do not.
    const cleared = await rl(["clear-counters", "h8", "--name", LAB]);
    t.equal(cleared.exitCode, 0, cleared.stderr);
    t.match(cleared.stdout, /counters cleared on h8/);
    t.equal((await statsOf(LAB, "h8")).counters.np_cnp_sent, 0, "h8's CNP count cleared");
    let still = 0;
    for (const h of ["h1", "h2", "h3", "h4"]) still += (await statsOf(LAB, h)).counters.rp_cnp_handled!;
    t.equal(still, handled, "the senders' counts untouched");
    t.equal((await rl(["clear-counters", "h99", "--name", LAB])).exitCode, 1, "an unknown device is refused");

    // What was on the wire: our verifier and tshark agree it is well formed, with PFC and CE in it.
    let pfc = 0;
    let ce = 0;
    for (const c of captures) {
      const bytes = readFileSync(c.file);
      const check = checkCapture(bytes);
      t.same(check.problems, [], `${c.at}: pcap-check finds no problem in ${check.frames} frames`);
      pfc += check.counts["pfc-xoff"] ?? 0;
      const { stdout } = await execa("tshark", [
        "-r",
        c.file,
        "--disable-protocol",
        "rpcordma",
        "-T",
        "fields",
        "-e",
        "frame.protocols",
        "-e",
        "_ws.malformed",
        "-e",
        "_ws.expert.severity",
        "-e",
        "ip.dsfield.ecn",
        "-e",
        "macc.cbfc.pause_time.c3",
      ]);
      const rows = stdout.split("\n").filter((l) => l.trim() !== "");
      t.notOk(
        rows.some((r) => r.split("\t")[1] !== ""),
        `${c.at}: tshark marks no frame malformed`,
      );
      t.notOk(
        rows.some((r) => /error/i.test(r.split("\t")[2] ?? "")),
        `${c.at}: tshark reports no expert error`,
      );
      ce += rows.filter((r) => r.split("\t")[3] === "3").length;
      t.ok(
        rows.some((r) => r.startsWith("eth:ethertype:ip:udp:infiniband")),
        `${c.at}: tshark decodes RoCEv2`,
      );
    }
    t.ok(pfc > 0, `PFC XOFF frames captured (${pfc})`);
    t.ok(ce > 0, `CE-marked packets captured and decoded by tshark (${ce})`);

    // The ECMP path of a 5-tuple, then the same 5-tuple after its uplink fails.
    const traced = await rl(["trace", "h1", "h5", "--sport", "50000", "--json", "--name", LAB]);
    t.equal(traced.exitCode, 0, traced.stderr);
    const hops = JSON.parse(traced.stdout) as { port: string | null }[];
    const answered = hops.filter((h) => h.port !== null).map((h) => h.port!);
    t.equal(answered.length, 3, `three switch hops: ${answered.join(" -> ")}`);
    t.match(answered[0]!, /^leaf1:/);
    t.match(answered[1]!, /^spine[12]:/);
    t.match(answered[2]!, /^leaf2:/);
    const spine = answered[1]!.split(":")[0]!;
    const uplink = spine === "spine1" ? "leaf1:eth1" : "leaf1:eth2";
    t.equal((await rl(["inject", "link-down", uplink, "--name", LAB])).exitCode, 0);
    const after = JSON.parse(
      (await rl(["trace", "h1", "h5", "--sport", "50000", "--json", "--name", LAB])).stdout,
    ) as {
      port: string | null;
    }[];
    const other = spine === "spine1" ? "spine2" : "spine1";
    t.match(
      after[1]?.port ?? "",
      new RegExp(`^${other}:`),
      `after ${uplink} went down the flow takes ${other}`,
    );
    const status = JSON.parse((await rl(["status", "--json", "--name", LAB])).stdout) as {
      links: { a: string; up: boolean }[];
    };
    t.equal(status.links.find((l) => l.a === uplink)?.up, false, "status shows the link down");
    t.equal((await rl(["inject", "link-up", uplink, "--name", LAB])).exitCode, 0);

    // A killed switch is reported, and comes back.
    t.equal((await rl(["inject", "kill", "spine1", "--name", LAB])).exitCode, 0);
    await new Promise((r) => setTimeout(r, 500));
    const killed = JSON.parse((await rl(["status", "--json", "--name", LAB])).stdout) as {
      devices: { node: string; status: string }[];
    };
    t.equal(
      killed.devices.find((d) => d.node === "spine1")?.status,
      "killed",
      "status reports the killed switch",
    );
    const events = JSON.parse((await execa("cat", [`/run/rocelab/${LAB}/state.json`])).stdout) as {
      devices: Record<string, { status: string }>;
    };
    t.equal(events.devices.spine1?.status, "killed", "the state file records it too");
    t.equal((await rl(["inject", "restart", "spine1", "--name", LAB])).exitCode, 0);

    // down leaves nothing behind.
    const down = await rl(["down", "--name", LAB]);
    t.equal(down.exitCode, 0, down.stderr);
    t.match(
      down.stdout,
      /lab ltest is down \(13 processes stopped, 12 namespaces removed\)/,
      "down says what it removed",
    );
    t.same(await labNamespaces(LAB), [], "no namespaces left");
    t.same(labProcesses(LAB), [], "no processes left");
    t.notOk(existsSync(`/run/rocelab/${LAB}`), "no state directory left");
    const links = await execa("ip", ["-o", "link"]);
    t.notMatch(links.stdout, new RegExp(`rl-${LAB}`), "no interface in the root namespace refers to the lab");
  },
);

t.test(
  "lab hygiene: two labs coexist, a running name is refused, bad input creates nothing, down cleans up after SIGKILL",
  async (t) => {
    const dir = t.testdir({});
    const small = join(dir, "pair.yaml");
    writeFileSync(
      small,
      'name: pair\nnodes:\n  sw: { kind: switch }\n  a: { kind: host }\n  b: { kind: host }\nlinks:\n  - ["a:eth1", "sw:eth1"]\n  - ["b:eth1", "sw:eth2"]\n',
    );
    teardowns.push("lta", "ltb", "ltbad");
    await upLab(t, "lta", small);
    // The first lab has the default metrics port: the second takes any free one.
    await upLab(t, "ltb", small, ["--metrics-port", "0"]);
    for (const lab of ["lta", "ltb"]) {
      const p = await execa(
        "ip",
        ["netns", "exec", `rl-${lab}-a`, "ping", "-c", "2", "-W", "5", "10.1.0.3"],
        { reject: false },
      );
      t.equal(p.exitCode, 0, `${lab}: a pings b while the other lab runs`);
    }

    // Labs you can list and enter: ls, a command without --name, exec by node name, names in the namespaces.
    const listed = await rl(["ls", "--json"]);
    t.equal(listed.exitCode, 0, listed.stderr);
    const labs = JSON.parse(listed.stdout) as {
      lab: string;
      status: string;
      devices?: number;
      links?: number;
    }[];
    for (const lab of ["lta", "ltb"])
      t.match(
        labs.find((l) => l.lab === lab),
        { status: "running", devices: 3, links: 2 },
        `ls lists ${lab}`,
      );
    t.match((await rl(["ls"])).stdout, /^LAB\s+STATUS\s+DEVICES\s+LINKS\s+DILATION\s+BEHIND/);
    const which = await rl(["status"]);
    t.equal(which.exitCode, 2, "no --name with two labs running: refused");
    t.match(which.stderr, /labs are running \(.*lta, ltb.*\): say which with --name/);
    const hosts = "/etc/netns/rl-lta-a/hosts";
    t.equal(statSync(hosts).mode & 0o777, 0o644, `${hosts} is 0644`);
    t.match(readFileSync(hosts, "utf8"), /^10\.1\.0\.3\tb$/m, "and names b");
    const byName = await rl(["exec", "a", "--name", "lta", "--", "ping", "-c", "1", "-W", "5", "b"]);
    t.equal(byName.exitCode, 0, `exec a -- ping b: ${byName.stderr}`);
    t.match(byName.stdout, /PING b \(10\.1\.0\.3\)/, "the name resolves inside the namespace");
    t.equal(
      (await rl(["exec", "a", "--name", "lta", "--", "false"])).exitCode,
      1,
      "exec passes the status on",
    );
    const nowhere = await rl(["exec", "c", "--name", "lta", "--", "true"]);
    t.equal(nowhere.exitCode, 2);
    t.match(nowhere.stderr, /no node c in lab lta \(nodes: .*a.*\)/);

    // Privilege hygiene: the lab's state is root's alone, and nothing of it listens on the network.
    for (const path of ["/run/rocelab", "/run/rocelab/lta"]) {
      const st = statSync(path);
      t.equal(st.mode & 0o777, 0o700, `${path} is 0700`);
      t.equal(st.uid, 0, `${path} belongs to root`);
    }
    for (const f of readdirSync("/run/rocelab/lta")) {
      const st = statSync(join("/run/rocelab/lta", f));
      t.equal(st.mode & 0o077, 0, `/run/rocelab/lta/${f} is private (mode ${(st.mode & 0o777).toString(8)})`);
    }
    const pidsOfLab = new Set(labProcesses("lta").map(String));
    const sockets = await execa("ss", ["-H", "-l", "-n", "-p", "-t", "-u", "-w"], { reject: false });
    const exposed = sockets.stdout
      .split("\n")
      .filter((l) => [...l.matchAll(/pid=(\d+)/g)].some((m) => pidsOfLab.has(m[1]!)))
      .filter((l) => !/\s(127\.\d+\.\d+\.\d+|\[::1\]):\d+\s/.test(l));
    t.same(exposed, [], "no process of the lab listens on a non-loopback address of the machine");

    const again = await rl(["up", small, "--name", "lta"]);
    t.equal(again.exitCode, 1, "up of a running name fails");
    t.match(again.stderr, /already running/);

    const bad = join(dir, "bad.yaml");
    writeFileSync(
      bad,
      'nodes:\n  sw: { kind: switch }\n  a: { kind: host }\nlinks:\n  - ["a:eth1", "sw:eth1"]\n  - { endpoints: ["a:eth1", "nope:eth1"], rate: 100Q }\n',
    );
    const refused = await rl(["up", bad, "--name", "ltbad"]);
    t.equal(refused.exitCode, 2, "bad topology: exit status 2");
    t.match(
      refused.stderr,
      new RegExp(`${bad.replace(/[/.]/g, "\\$&")}:6:\\d+: links\\[1\\]\\.rate: "100Q" is not a rate`),
    );
    t.same(await labNamespaces("ltbad"), [], "nothing was created for the bad topology");
    t.notOk(existsSync("/run/rocelab/ltbad"), "not even a state directory");

    // SIGKILL every process of lab ltb, then down must still remove everything.
    const pids = labProcesses("ltb");
    t.ok(pids.length >= 4, `ltb has a supervisor and three devices (${pids.length} processes)`);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 300));
    t.ok((await labNamespaces("ltb")).length > 0, "its namespaces outlive the processes");
    const down = await rl(["down", "--name", "ltb"]);
    t.equal(down.exitCode, 0, down.stderr);
    t.match(
      down.stdout,
      /lab ltb is down \(0 processes stopped, 3 namespaces removed\)/,
      "only namespaces were left",
    );
    t.same(await labNamespaces("ltb"), [], "down removed the namespaces of the SIGKILLed lab");
    t.same(labProcesses("ltb"), []);
    t.match(
      down.stderr,
      "the lab's logs are kept in /run/rocelab/ltb.logs/",
      "an abnormal end keeps the logs",
    );
    t.ok(existsSync("/run/rocelab/ltb.logs/supervisor.log"));
    t.equal((await rl(["down", "--name", "ltb", "--purge"])).exitCode, 0);
    t.notOk(existsSync("/run/rocelab/ltb.logs"), "down --purge removes them");
    t.notOk(existsSync("/etc/netns/rl-ltb-a"), "nor its hosts files");
    t.ok((await labNamespaces("lta")).length === 3, "the other lab is untouched");
    const only = await rl(["status", "--json"]);
    t.equal(only.exitCode, 0, only.stderr);
    t.equal((JSON.parse(only.stdout) as { lab: string }).lab, "lta", "no --name, one lab running: that lab");
    // (down is given the name: without it, a lab of someone else's running beside the tests could be the one.)
    t.equal((await rl(["down", "--name", "lta"])).exitCode, 0);
    t.notOk(existsSync("/etc/netns/rl-lta-a"), "down removes the lab's hosts files");
  },
);
