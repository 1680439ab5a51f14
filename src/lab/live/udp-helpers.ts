// Kernel UDP traffic between hosts (dgram-as-promised processes in the hosts' namespaces): lossy background
// next to RoCE, started by `rocelab inject udp`. The rate is emulated: a sender runs at rate / dilation of
// real bits per second. Every helper is registered with the lab (so `down` finds it) before it runs.

import { execa } from "execa";
import type { ActionOf } from "../../scenario/action.js";
import { type AddressPlan, hostAddress } from "../../scenario/address-plan.js";
import { NodeKind, type Topology } from "../../scenario/topology.js";
import { ipToString } from "../../wire/bytes.js";
import { type DevicePrivileges, devicePrivileges } from "./device-privileges.js";
import { logPath, nsName } from "./names.js";
import { entryPath } from "./paths.js";

const UDP_TOOL = entryPath("main/udp-tool.js");
/** How helpers are started (device-privileges.ts), found out once per supervisor. */
let helperPrivileges: Promise<DevicePrivileges> | null = null;

export class UdpHelpers {
  private readonly helpers: { name: string; kill: () => void }[] = [];
  private readonly receivers = new Set<string>();
  private readonly counters = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly lab: string,
    private readonly topo: Topology,
    private readonly plan: AddressPlan,
    /** The lab's dilation now (a sender keeps the real rate it was started with). */
    private readonly dilation: () => number,
    /** Records a helper process in the lab's state. */
    private readonly register: (name: string, namespace: string, pid: number | null) => void,
  ) {}

  async start(req: ActionOf<"udp">): Promise<void> {
    const hosts = this.topo.nodes.filter((n) => n.kind === NodeKind.Host).map((n) => n.name);
    for (const h of [req.from, req.to]) if (!hosts.includes(h)) throw new Error(`${h} is not a host`);
    if (!this.receivers.has(req.to)) {
      this.receivers.add(req.to);
      await this.spawn(`udp-recv-${req.to}`, req.to, ["recv"]);
    }
    const args = [
      "send",
      "--dst",
      ipToString(hostAddress(this.plan, req.to).ip),
      "--rate",
      String(req.rateBps / this.dilation()),
      "--size",
      String(req.size ?? 1000),
    ];
    if (req.durationNs !== undefined)
      args.push("--seconds", String((req.durationNs * this.dilation()) / 1e9));
    await this.spawn(`udp-send-${req.from}-${req.to}-${this.helpers.length}`, req.from, args);
  }

  /** Counters of the helper processes (name -> last report). */
  stats(): Record<string, unknown> {
    return Object.fromEntries(this.counters);
  }

  stopSenders(): void {
    for (const h of this.helpers.filter((x) => x.name.startsWith("udp-send"))) h.kill();
  }

  stopAll(): void {
    for (const h of this.helpers) h.kill();
  }

  private async spawn(name: string, node: string, args: string[]): Promise<void> {
    const ns = nsName(this.lab, node);
    // Plain UDP on a port above 1023: no capability at all (device-privileges.ts).
    helperPrivileges ??= devicePrivileges([process.execPath, UDP_TOOL], process.env, []);
    const { prefix } = await helperPrivileges;
    const child = execa(
      "ip",
      ["netns", "exec", ns, ...prefix, process.execPath, UDP_TOOL, ...args, "--lab", this.lab],
      {
        ipc: true,
        // Its counter reports are read as they come, not kept for the result (device-process.ts).
        buffer: false,
        stdin: "ignore",
        stdout: { file: logPath(this.lab, name), append: true },
        stderr: { file: logPath(this.lab, name), append: true },
        reject: false,
        cleanup: true,
      },
    );
    child.on("message", (m) => {
      this.counters.set(name, m as Record<string, unknown>);
    });
    this.helpers.push({ name, kill: () => child.kill("SIGTERM") });
    this.register(name, ns, child.pid ?? null);
  }
}
