// How device processes are started (setpriv's arguments) and as whom: the unprivileged user when it can
// read the project's files, else root — with CAP_NET_RAW alone either way. The running devices' CapEff
// is checked by test/live/security.test.ts.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { devicePrivileges, lookupUser, setprivArgs } from "../../../src/lab/live/device-privileges.js";
import { tempDir } from "../../helpers/temp-dir.js";

t.test("setpriv's arguments", (t) => {
  t.same(setprivArgs({ name: "nobody", uid: 65534, gid: 65534 }), [
    "--reuid=65534",
    "--regid=65534",
    "--clear-groups",
    "--inh-caps=-all,+net_raw",
    "--ambient-caps=-all,+net_raw",
    "--bounding-set=-all,+net_raw",
    "--no-new-privs",
    "--",
  ]);
  t.same(setprivArgs(null, []), [
    "--inh-caps=-all",
    "--ambient-caps=-all",
    "--bounding-set=-all",
    "--no-new-privs",
    "--",
  ]);
  const dir = tempDir("rl-priv-");
  writeFileSync(join(dir, "passwd"), "root:x:0:0::/root:/bin/sh\nlab:x:1234:99::/:/usr/sbin/nologin\n");
  t.same(lookupUser("lab", join(dir, "passwd")), { name: "lab", uid: 1234, gid: 99 });
  t.equal(lookupUser("missing", join(dir, "passwd")), null);
  t.end();
});

t.test(
  "as nobody where the files can be read, else as root; CAP_NET_RAW only",
  { skip: process.getuid?.() !== 0 && "needs root (setpriv changes user ids)" },
  async (t) => {
    const dir = tempDir("rl-priv-");
    chmodSync(dir, 0o755);
    const open = join(dir, "open.js");
    writeFileSync(open, "", { mode: 0o644 });
    mkdirSync(join(dir, "private"), { mode: 0o700 });
    const hidden = join(dir, "private", "main.js");
    writeFileSync(hidden, "");
    const nobody = await devicePrivileges([open], {});
    t.match(nobody, { user: /^nobody \(uid \d+, capabilities: net_raw\)$/ });
    t.notOk("note" in nobody);
    const status = await execa(nobody.prefix[0]!, [...nobody.prefix.slice(1), "cat", "/proc/self/status"]);
    t.match(status.stdout, /^CapEff:\s+0000000000002000$/m, "CAP_NET_RAW alone (bit 13)");
    t.match(status.stdout, /^CapBnd:\s+0000000000002000$/m, "nothing else can be gained");
    t.match(status.stdout, /^NoNewPrivs:\s+1$/m);
    t.match(status.stdout, /^Uid:\s+65534\s/m);

    const root = await devicePrivileges([open, hidden], {});
    t.match(root, {
      user: "root (capabilities: net_raw)",
      note: /nobody cannot read the project's files .*main\.js.*: make them readable by others, or set ROCELAB_DEVICE_USER/,
    });
    const asRoot = await execa(root.prefix[0]!, [...root.prefix.slice(1), "cat", "/proc/self/status"]);
    t.match(asRoot.stdout, /^Uid:\s+0\s/m);
    t.match(asRoot.stdout, /^CapEff:\s+0000000000002000$/m, "root, but with CAP_NET_RAW alone");
    t.match(await devicePrivileges([open], { ROCELAB_DEVICE_USER: "root" }), {
      user: "root (capabilities: net_raw)",
    });
    t.match(await devicePrivileges([open], { ROCELAB_DEVICE_USER: "no-such-user" }), {
      note: "no user no-such-user in /etc/passwd",
    });
    t.match(await devicePrivileges([open], {}, []), { user: /capabilities: none/ });
  },
);
