// A page checked in a real headless browser: Debian's chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: JSON messages, NUL-terminated, written on fd 3 and read from fd 4).
// Reports every image's load state and every console error, uncaught exception and failed load. The
// browser's profile directory is removed when it has exited.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";

export interface PageCheck {
  readonly title: string;
  /** Every image: loaded, its natural width and the width the page shows it at (a 1280 px wide window). */
  readonly images: readonly {
    readonly src: string;
    readonly loaded: boolean;
    readonly natural: number;
    readonly shown: number;
  }[];
  readonly errors: readonly string[];
}

interface Message {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export async function checkPage(url: string, timeoutMs = 60_000): Promise<PageCheck> {
  const profile = mkdtempSync(join(tmpdir(), "rocelab-chromium-"));
  const child = spawn(
    "chromium",
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--remote-debugging-pipe",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    // Its own temporary files (org.chromium.Chromium.*) inside the profile, removed with it.
    { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"], env: { ...process.env, TMPDIR: profile } },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  const pending = new Map<number, (m: Message) => void>();
  const listeners: ((m: Message) => void)[] = [];
  let buffer = "";
  fromBrowser.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let nul = buffer.indexOf("\0");
    while (nul >= 0) {
      const m = JSON.parse(buffer.slice(0, nul)) as Message;
      buffer = buffer.slice(nul + 1);
      if (m.id !== undefined) pending.get(m.id)?.(m);
      else for (const l of listeners) l(m);
      nul = buffer.indexOf("\0");
    }
  });
  let nextId = 1;
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (m) => {
        pending.delete(id);
        if (m.error) reject(new Error(`${method}: ${m.error.message}`));
        else resolve(m.result ?? {});
      });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  try {
    const { targetId } = await send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = (await send("Target.attachToTarget", { targetId, flatten: true })) as {
      sessionId: string;
    };
    const errors: string[] = [];
    let loaded: () => void = () => {};
    const load = new Promise<void>((r) => {
      loaded = r;
    });
    listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      const p = m.params ?? {};
      if (m.method === "Page.loadEventFired") loaded();
      else if (m.method === "Runtime.exceptionThrown")
        errors.push(`exception: ${JSON.stringify(p.exceptionDetails)}`);
      else if (m.method === "Runtime.consoleAPICalled" && (p.type === "error" || p.type === "assert"))
        errors.push(`console.${p.type}: ${JSON.stringify(p.args)}`);
      else if (m.method === "Log.entryAdded") {
        const e = p.entry as { level: string; text: string; url?: string };
        if (e.level === "error") errors.push(`${e.text}${e.url ? ` (${e.url})` : ""}`);
      }
    });
    for (const domain of ["Page", "Runtime", "Log"]) await send(`${domain}.enable`, {}, sessionId);
    await send(
      "Emulation.setDeviceMetricsOverride",
      { width: 1280, height: 1000, deviceScaleFactor: 1, mobile: false },
      sessionId,
    );
    await send("Page.navigate", { url }, sessionId);
    await load;
    const { result } = (await send(
      "Runtime.evaluate",
      {
        expression:
          "JSON.stringify({ title: document.title, images: [...document.images].map((i) => ({ src: i.src, loaded: i.complete && i.naturalWidth > 0, natural: i.naturalWidth, shown: i.width })) })",
        returnByValue: true,
      },
      sessionId,
    )) as { result: { value: string } };
    const page = JSON.parse(result.value) as Omit<PageCheck, "errors">;
    await send("Browser.close").catch(() => {});
    return { ...page, errors };
  } finally {
    clearTimeout(timer);
    // The browser's profile directory goes with it (2-3 MB a run), once it has stopped writing there.
    const exited =
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((r) => child.once("exit", () => r()));
    child.kill("SIGTERM");
    const killLater = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killLater);
    rmSync(profile, { recursive: true, force: true });
  }
}
