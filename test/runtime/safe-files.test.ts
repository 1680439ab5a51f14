// Files written as root never go through a link someone planted: the planted links here are made as root
// in a scratch directory (what a second account would plant in /tmp), and every victim file must come out
// of each case as it went in.
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import t from "tap";
import {
  OutputDir,
  openNewFile,
  parseFileMode,
  UnsafeOutputError,
  writeNewFile,
} from "../../src/runtime/realtime/safe-files.js";
import { tempDir } from "../helpers/temp-dir.js";

const SECRET = "root's secret\n";

/** A root-owned 0600 file, as /etc/shadow is. */
function victim(dir: string, name = "victim"): string {
  const path = join(dir, name);
  writeFileSync(path, SECRET, { mode: 0o600 });
  return path;
}

const mode = (path: string): number => statSync(path).mode & 0o777;

t.test("the hazard is real: a plain write follows the planted link", (t) => {
  // What rocelab did before: this is the write the module exists to prevent.
  const dir = tempDir("rl-safe-");
  const v = victim(dir);
  mkdirSync(join(dir, "out"));
  symlinkSync(v, join(dir, "out", "report.json"));
  writeFileSync(join(dir, "out", "report.json"), "{}");
  t.equal(readFileSync(v, "utf8"), "{}", "the kernel follows a root-planted link for root");
  t.end();
});

t.test("a new output directory: 0700, files 0600", (t) => {
  const dir = tempDir("rl-safe-");
  const out = OutputDir.create(join(dir, "a", "run"), { flag: "--out" });
  t.teardown(() => out.close());
  t.equal(mode(join(dir, "a", "run")), 0o700);
  const path = out.write("report.json", "{}\n");
  t.equal(path, join(dir, "a", "run", "report.json"));
  t.equal(mode(path), 0o600);
  out.write("plots/goodput.svg", "<svg/>");
  t.equal(mode(join(dir, "a", "run", "plots")), 0o700);
  t.equal(readFileSync(join(dir, "a", "run", "plots", "goodput.svg"), "utf8"), "<svg/>");
  t.equal(mode(out.write("open.txt", "x", 0o644)), 0o644, "a mode the caller asks for");
  t.same(out.entries().sort(), ["open.txt", "plots", "report.json"], "no temporary file left");
  t.end();
});

t.test("an existing non-empty directory is refused unless --force", (t) => {
  const dir = tempDir("rl-safe-");
  const v = victim(dir);
  const out = join(dir, "incast-out");
  mkdirSync(out);
  symlinkSync(v, join(out, "report.json"));
  t.throws(() => OutputDir.create(out, { flag: "--out" }), {
    name: "UnsafeOutputError",
    message: new RegExp(
      `--out ${out} exists and is not empty \\(1 entries, e\\.g\\. report\\.json\\): choose a new directory, or pass --force`,
    ),
  });
  const forced = OutputDir.create(out, { force: true });
  forced.write("report.json", "{}\n");
  forced.close();
  t.equal(readFileSync(v, "utf8"), SECRET, "the victim is untouched");
  t.notOk(lstatSync(join(out, "report.json")).isSymbolicLink(), "the link was replaced by the report");
  t.equal(readFileSync(join(out, "report.json"), "utf8"), "{}\n");
  const empty = join(dir, "empty");
  mkdirSync(empty);
  OutputDir.create(empty).close();
  t.pass("an existing empty directory is fine");
  t.end();
});

t.test("links in place of the directory, a subdirectory, or after the check", (t) => {
  const dir = tempDir("rl-safe-");
  const victimDir = join(dir, "etc");
  mkdirSync(victimDir);
  const v = victim(victimDir, "report.json");
  symlinkSync(victimDir, join(dir, "out"));
  t.throws(() => OutputDir.create(join(dir, "out"), { flag: "--out", force: true }), {
    message: /--out .*\/out is a symbolic link: rocelab does not write through links/,
  });

  const out = OutputDir.create(join(dir, "run"));
  t.teardown(() => out.close());
  symlinkSync(victimDir, join(dir, "run", "plots"));
  t.throws(() => out.write("plots/report.json", "x"), { message: /run\/plots is a symbolic link/ });

  // The user swaps the checked directory for a link to the victim's: the handle keeps the writes where
  // they were checked.
  renameSync(join(dir, "run"), join(dir, "run-moved"));
  symlinkSync(victimDir, join(dir, "run"));
  out.write("report.json", "{}\n");
  t.equal(readFileSync(v, "utf8"), SECRET, "the victim is untouched");
  t.equal(readFileSync(join(dir, "run-moved", "report.json"), "utf8"), "{}\n", "written where checked");
  t.end();
});

t.test("one file the user named: created new, never through a link", (t) => {
  const dir = tempDir("rl-safe-");
  const v = victim(dir);
  const pcap = join(dir, "x.pcap");
  symlinkSync(v, pcap);
  t.throws(() => openNewFile(pcap, { flag: "-w" }), {
    name: "UnsafeOutputError",
    message: /-w .*x\.pcap is a symbolic link: rocelab does not write through links/,
  });
  const fd = openNewFile(pcap, { force: true });
  writeFileSync(fd, "pcap");
  t.equal(readFileSync(v, "utf8"), SECRET, "--force removes the link, not its target");
  t.equal(mode(pcap), 0o600);
  t.throws(() => openNewFile(pcap), {
    message: /x\.pcap exists: choose another name, remove it, or pass --force/,
  });

  const metrics = join(dir, "m.om");
  symlinkSync(v, metrics);
  t.throws(() => writeNewFile(metrics, "# EOF\n"), UnsafeOutputError);
  writeNewFile(metrics, "# EOF\n", { force: true });
  t.equal(readFileSync(v, "utf8"), SECRET);
  t.equal(readFileSync(metrics, "utf8"), "# EOF\n");
  writeNewFile(join(dir, "new.json"), "{}", { mode: 0o644 });
  t.equal(mode(join(dir, "new.json")), 0o644);
  t.throws(() => writeNewFile(join(dir, "missing", "f"), "x"), { message: /cannot open .*missing/ });
  t.end();
});

t.test("names and modes", (t) => {
  const dir = tempDir("rl-safe-");
  const out = OutputDir.create(join(dir, "o"));
  t.teardown(() => out.close());
  t.throws(() => out.write("../escape", "x"), { message: /"\.\." is not a file name/ });
  t.equal(parseFileMode("600"), 0o600);
  t.equal(parseFileMode("0644"), 0o644);
  t.throws(() => parseFileMode("666", "--mode"), { message: /--mode 666 would let others write the file/ });
  t.throws(() => parseFileMode("rw"), { message: /octal file mode/ });
  t.end();
});
