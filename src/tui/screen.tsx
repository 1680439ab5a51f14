// Mounting the dashboard and the bring-up progress on a terminal. The dashboard takes the alternate screen
// (as htop and k9s do) so quitting gives the terminal back as it was, and paints its frames through the
// FramePainter (only changed rows, no flicker); every way out goes through close().
import { render } from "ink";
import type { Lab } from "../lab/lab.js";
import { App } from "./components/App.js";
import { BringUp, type BringUpStep } from "./components/BringUp.js";
import { FramePainter } from "./painter.js";
import type { SimPacing } from "./run-effect.js";
import type { DashboardStore } from "./store.js";
import { ThemeContext } from "./theme.js";

const ENTER_ALTERNATE_SCREEN = "\u001b[?1049h\u001b[2J\u001b[H";
const LEAVE_ALTERNATE_SCREEN = "\u001b[?1049l";

/** Paints per second at most: counters arrive a few times a second; more would only cost CPU. */
const MAX_FPS = 12;

/** Writes to a terminal that may be gone (SIGHUP): a lost terminal must not stop the teardown. */
function safeWrite(stream: NodeJS.WriteStream, text: string): void {
  try {
    stream.write(text);
  } catch {
    // Nothing to restore on a terminal that no longer exists.
  }
}

export interface DashboardOptions {
  readonly lab: Lab;
  readonly store: DashboardStore;
  readonly pacing?: SimPacing | null;
  readonly colour: boolean;
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
  /** Full screen: the terminal's alternate screen, painted by the FramePainter (default true). */
  readonly alternateScreen?: boolean;
}

export interface DashboardHandle {
  /** Resolves when the user quits (q, Ctrl-C); rejects when the UI itself failed. */
  readonly quit: Promise<void>;
  /** Takes the dashboard off the terminal and restores it (safe to call more than once). */
  close(): void;
}

/** Shows the dashboard until the user quits or close() is called. */
export function openDashboard(opts: DashboardOptions): DashboardHandle {
  const stdout = opts.stdout ?? process.stdout;
  const alternate = opts.alternateScreen ?? true;
  if (alternate) safeWrite(stdout, ENTER_ALTERNATE_SCREEN);
  let onQuit: () => void = () => {};
  let onFail: (e: unknown) => void = () => {};
  const quit = new Promise<void>((resolve, reject) => {
    onQuit = resolve;
    onFail = reject;
  });
  const painter = alternate ? new FramePainter(stdout, MAX_FPS) : null;
  const instance = render(
    <ThemeContext.Provider value={{ colour: opts.colour }}>
      <App store={opts.store} lab={opts.lab} pacing={opts.pacing ?? null} onQuit={() => onQuit()} />
    </ThemeContext.Provider>,
    {
      // The painter takes whole frames, which is what Ink writes in debug mode.
      stdout: painter ? (painter as unknown as NodeJS.WriteStream) : stdout,
      debug: painter !== null,
      ...(opts.stdin ? { stdin: opts.stdin } : {}),
      // Ctrl-C is a key like q: it goes through the same quit path, which tears the lab down.
      exitOnCtrlC: false,
      // Nothing of ours logs while the dashboard is up; a patched console would write into the frames.
      patchConsole: false,
      maxFps: MAX_FPS,
    },
  );
  // Ink unmounts with an error when a component throws: that is a crash of the UI.
  instance.waitUntilExit().then(
    () => onQuit(),
    (e: unknown) => onFail(e),
  );
  let closed = false;
  return {
    quit,
    close() {
      if (closed) return;
      closed = true;
      try {
        instance.unmount();
        instance.cleanup();
        painter?.close();
      } catch {
        // A terminal that is gone cannot be drawn on; restoring it below is all that is left.
      }
      if (alternate) safeWrite(stdout, LEAVE_ALTERNATE_SCREEN);
    },
  };
}

export interface BringUpHandle {
  step(text: string): void;
  /** Every step is done. */
  done(): void;
  /** The last step failed. */
  fail(error: string): void;
  /** Leaves the final state on screen and stops drawing. */
  close(): void;
}

/** Shows bring-up steps as they happen (a spinner on the current one). */
export function openBringUp(
  title: string,
  colour: boolean,
  stdout: NodeJS.WriteStream = process.stdout,
): BringUpHandle {
  const steps: BringUpStep[] = [];
  let done = false;
  let error: string | null = null;
  const view = () => (
    <ThemeContext.Provider value={{ colour }}>
      <BringUp title={title} steps={[...steps]} done={done} error={error} />
    </ThemeContext.Provider>
  );
  const instance = render(view(), { stdout, exitOnCtrlC: false, patchConsole: false });
  let closed = false;
  return {
    step(text) {
      steps.push({ id: steps.length, text });
      instance.rerender(view());
    },
    done() {
      done = true;
      instance.rerender(view());
    },
    fail(message) {
      error = message;
      instance.rerender(view());
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        instance.unmount();
        instance.cleanup();
      } catch {
        // As above: nothing to draw on.
      }
    },
  };
}
