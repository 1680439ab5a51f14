// What a lab's device processes may do: forward frames on their namespace's interfaces, nothing else.
// The supervisor starts each through setpriv(1) (util-linux; argument arrays, never a shell) inside
// `ip netns exec`, so that the device runs
//   - as an unprivileged user (ROCELAB_DEVICE_USER, default nobody) where it can read the project's
//     files — the shared tables it needs are opened by the supervisor and handed over as descriptors —
//     else as root;
//   - with CAP_NET_RAW alone, in its effective, permitted, inheritable and ambient sets and as the whole
//     bounding set: AF_PACKET sockets, their PACKET_MMAP rings and promiscuous membership need nothing
//     else (the rings' pages are the kernel's, not locked user memory: no CAP_IPC_LOCK);
//   - with no_new_privs, so no set-user-ID program it could run gives any of it back.
// The lab's UDP helpers (`inject udp`) run the same way with no capability at all.
// test/live/security.test.ts reads CapEff, the user ids and NoNewPrivs of a running device.

import { readFileSync } from "node:fs";
import { execa } from "execa";

/** The capabilities a device process keeps (capabilities(7) names, as setpriv takes them). */
export const DEVICE_CAPABILITIES = ["net_raw"] as const;
/** The user device processes run as unless ROCELAB_DEVICE_USER names another (`root`: keep uid 0). */
export const DEFAULT_DEVICE_USER = "nobody";

export interface DeviceUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** `name`'s ids from /etc/passwd (null: no such user). */
export function lookupUser(name: string, passwd = "/etc/passwd"): DeviceUser | null {
  let text: string;
  try {
    text = readFileSync(passwd, "utf8");
  } catch {
    return null;
  }
  for (const line of text.split("\n")) {
    const f = line.split(":");
    if (f[0] === name && f.length >= 4) return { name, uid: Number(f[2]), gid: Number(f[3]) };
  }
  return null;
}

/** setpriv's arguments that drop to `user` (null: stay root) with only the capabilities `caps`. */
export function setprivArgs(
  user: DeviceUser | null,
  caps: readonly string[] = DEVICE_CAPABILITIES,
): string[] {
  const keep = caps.map((c) => `,+${c}`).join("");
  return [
    ...(user === null ? [] : [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups"]),
    `--inh-caps=-all${keep}`,
    `--ambient-caps=-all${keep}`,
    `--bounding-set=-all${keep}`,
    "--no-new-privs",
    "--",
  ];
}

export interface DevicePrivileges {
  /** The command line prefix (after `ip netns exec NS`) that starts a device with them. */
  readonly prefix: readonly string[];
  /** Who the devices run as, for the log. */
  readonly user: string;
  /** Why not the unprivileged user, when not. */
  readonly note?: string;
}

/**
 * How this lab's devices are started: as the unprivileged user if it can read `files` (the node binary,
 * the device's bundle and the native addon: a checkout under a private home cannot be), checked once by
 * running `test -r` as that user; else as root. Always with DEVICE_CAPABILITIES only.
 */
export async function devicePrivileges(
  files: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  caps: readonly string[] = DEVICE_CAPABILITIES,
): Promise<DevicePrivileges> {
  const name = env.ROCELAB_DEVICE_USER?.trim() || DEFAULT_DEVICE_USER;
  const capText = `capabilities: ${caps.length > 0 ? caps.join(", ") : "none"}`;
  const asRoot = (note?: string): DevicePrivileges => ({
    prefix: ["setpriv", ...setprivArgs(null, caps)],
    user: `root (${capText})`,
    ...(note !== undefined ? { note } : {}),
  });
  if (name === "root") return asRoot();
  const user = lookupUser(name);
  if (user === null) return asRoot(`no user ${name} in /etc/passwd`);
  const test = files.flatMap((f, i) => [...(i > 0 ? ["-a"] : []), "-r", f]);
  const probe = await execa("setpriv", [...setprivArgs(user, []), "test", ...test], { reject: false });
  if (probe.exitCode !== 0)
    return asRoot(
      `${name} cannot read the project's files (${files.join(", ")}): make them readable by others, or set ROCELAB_DEVICE_USER`,
    );
  return { prefix: ["setpriv", ...setprivArgs(user, caps)], user: `${name} (uid ${user.uid}, ${capText})` };
}
