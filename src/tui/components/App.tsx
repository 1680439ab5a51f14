// The dashboard: tab bar, the current view (or the help overlay), a prompt panel when an action asks
// something, and the status line, filling the terminal exactly (the FramePainter puts each row in place).
import { Box } from "ink";
import { type ReactElement, useCallback, useMemo, useRef, useState } from "react";
import type { Lab } from "../../lab/lab.js";
import { busiestNode } from "../busiest-node.js";
import type { Effect } from "../effect.js";
import { useDashboardKeys } from "../hooks/use-dashboard-keys.js";
import { useDashboardState } from "../hooks/use-dashboard-state.js";
import { useTerminalSize } from "../hooks/use-terminal-size.js";
import { useTheme } from "../hooks/use-theme.js";
import type { KeyContext } from "../key-context.js";
import { heldPriorities } from "../pfc-enable.js";
import { runEffect, type SimPacing } from "../run-effect.js";
import type { ViewLayout } from "../segments.js";
import type { DashboardStore } from "../store.js";
import { INITIAL_UI, type UiState } from "../ui-state.js";
import { needsText } from "../watchdog-eta.js";
import { EventsView } from "./EventsView.js";
import { FabricView } from "./FabricView.js";
import { FlowsView } from "./FlowsView.js";
import { HelpOverlay, helpPage } from "./HelpOverlay.js";
import { NodeView } from "./NodeView.js";
import { PromptPanel, promptLines } from "./PromptPanel.js";
import { StatusLine } from "./StatusLine.js";
import { TabBar } from "./TabBar.js";

export interface AppProps {
  readonly store: DashboardStore;
  readonly lab: Lab;
  /** Pacing of a simulated run (space, + and -); absent for a live lab. */
  readonly pacing?: SimPacing | null;
  /** The user asked to quit (q or Ctrl-C). */
  readonly onQuit: () => void;
  /** The UI state to start from (tests). */
  readonly initialUi?: UiState;
}

/** The whole dashboard. */
export function App({ store, lab, pacing = null, onQuit, initialUi }: AppProps): ReactElement {
  const state = useDashboardState(store);
  const size = useTerminalSize();
  const theme = useTheme();
  const [ui, setUi] = useState<UiState>(initialUi ?? INITIAL_UI);
  const layout = useRef<ViewLayout>({ rows: 0, page: 1 });
  // Laid out at the terminal's real size, however small: lines are cut, never wrapped, so the screen
  // stays in place even when it is too small to be useful.
  const width = Math.max(1, size.columns);
  const height = Math.max(2, size.rows);

  const context: Omit<KeyContext, "rows" | "page"> = useMemo(() => {
    const devices = new Map((state.snapshot?.devices ?? []).map((d) => [d.node, d.status]));
    return {
      nodes: state.topology.nodes.map((n) => ({
        name: n.name,
        kind: n.kind,
        status: devices.get(n.name) ?? "unknown",
      })),
      links: state.snapshot?.links ?? state.topology.links,
      preset: state.preset,
      sim: pacing !== null,
      eventsTotal: state.eventsTotal,
      held: heldPriorities(state.snapshot),
      busiest: busiestNode(state.topology.nodes, state.ports),
      // The watchdog of the first switch speaks for all (the topology's layers rarely differ here).
      watchdogNeeds: needsText(
        state.topology.nodes.find((n) => n.watchdog !== undefined)?.watchdog,
        state.snapshot?.dilation ?? 1,
      ),
    };
  }, [state, pacing]);

  const handle = useCallback(
    (effect: Effect) => {
      if (effect.type === "quit") onQuit();
      else void runEffect(effect, lab, store, pacing);
    },
    [onQuit, lab, store, pacing],
  );
  useDashboardKeys(ui, setUi, context, layout, handle);

  const body = Math.max(0, height - 2);
  let promptHeight = 0;
  if (ui.prompt)
    promptHeight = Math.max(
      0,
      Math.min(body - 3, promptLines(ui.prompt, { ...context, ...layout.current }, width, theme).length),
    );
  const viewHeight = body - promptHeight;
  let view: ReactElement;
  if (ui.help) {
    // The scroll keys stop at the help's last page.
    const page = Math.max(1, body - 1);
    layout.current = { rows: helpPage(width, body, 0).max + page, page };
    view = <HelpOverlay width={width} height={body} top={ui.helpTop ?? 0} />;
  } else if (ui.tab === "fabric")
    view = (
      <FabricView state={state} top={ui.scroll.fabric} width={width} height={viewHeight} layout={layout} />
    );
  else if (ui.tab === "node")
    view = (
      <NodeView
        state={state}
        node={ui.node}
        port={ui.port}
        width={width}
        height={viewHeight}
        layout={layout}
      />
    );
  else if (ui.tab === "flows")
    view = (
      <FlowsView
        state={state}
        mode={ui.flowsMode}
        top={ui.scroll.flows}
        width={width}
        height={viewHeight}
        layout={layout}
      />
    );
  else
    view = <EventsView state={state} scroll={ui.events} width={width} height={viewHeight} layout={layout} />;

  return (
    <Box flexDirection="column" width={width} height={height}>
      <TabBar tab={ui.tab} title={`${state.runtime} ${state.lab}`} width={width} />
      {view}
      {ui.prompt && !ui.help ? (
        <PromptPanel
          prompt={ui.prompt}
          context={{ ...context, ...layout.current }}
          width={width}
          height={promptHeight}
        />
      ) : null}
      <StatusLine state={state} width={width} />
    </Box>
  );
}
