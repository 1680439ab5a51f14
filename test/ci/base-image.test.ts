// .ci/base-image (the base image of Dockerfile.ci from Debian's packages, docs/ci-containers.md): it checks
// what it needs before it creates anything, and says what is missing. Building the image itself needs a
// Debian mirror and Docker; it is not run here.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";

t.test("a missing tool is named, with the package that brings it, and nothing is created", async (t) => {
  const bin = mkdtempSync(join(tmpdir(), "rocelab-base-test-"));
  t.teardown(() => rmSync(bin, { recursive: true, force: true }));
  // A PATH with the shell's basics but without debootstrap.
  for (const tool of ["id", "dirname", "readlink", "mktemp"])
    symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  const r = await execa("/bin/bash", [".ci/base-image"], { reject: false, env: { PATH: bin } });
  t.equal(r.exitCode, 1);
  t.match(r.stderr, /base-image: debootstrap is missing \(apt-get install debootstrap docker\.io/);
  t.end();
});

t.test("the script is valid bash and names the documented run command", async (t) => {
  const r = await execa("bash", ["-n", ".ci/base-image"], { reject: false });
  t.equal(r.exitCode, 0, r.stderr);
  const text = (await import("node:fs")).readFileSync(".ci/base-image", "utf8");
  t.match(text, /--cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined/);
  t.match(text, /debootstrap --variant=minbase --include=ca-certificates bookworm/);
});
