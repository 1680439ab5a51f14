// The live tests (test/live/*.test.ts), one after another, while tap runs the other files beside them.
//
// A live test brings up namespaces, veths and a process per device; two at once would contend for the
// machine's labs and for its two cores' promptness, so they run one at a time. Marked `serial` in tap's
// config they also stopped every other file (tap starts no parallel file while a serial one runs), and for
// the ~10 minutes of the live block the suite used about a third of a core. Here they are one tap file that
// runs them in turn, each as its own process (its TAP output nested under its name, its coverage collected
// as any test process's), and package.json gives tap a third job so that two workers keep running the
// other files meanwhile. Its name sorts first, so the live block starts with the suite and overlaps the
// most of it.
//
// `npx tap test/live/foo.test.ts` still runs one live test by itself, and `npx tap test/live` the folder,
// serial as before.

import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";

/** Per live file, as tap's `timeout` for any file (package.json). */
const FILE_TIMEOUT_MS = 300_000;

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, "live");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".test.ts"))
  .sort();

// The whole block is many files' worth of time (tap's runner would stop this file at the per-file
// timeout): the limit that matters is each live file's own, below.
t.setTimeout((files.length + 1) * FILE_TIMEOUT_MS);

t.ok(files.length > 0, `live tests found in ${dir}`);
for (const f of files) {
  await t.spawn(
    process.execPath,
    ["--import=./scripts/test-loader/register.mjs", join("test", "live", f)],
    { cwd: join(here, ".."), timeout: FILE_TIMEOUT_MS },
    `test/live/${f}`,
  );
}
