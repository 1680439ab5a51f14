// A scrolling list view (fabric, flows): draws what its layout function makes of the state at the scroll
// position, and tells the scroll keys how long the list is and how much of it one page shows.
import type { MutableRefObject, ReactElement } from "react";
import { useTheme } from "../hooks/use-theme.js";
import type { ViewLayout, ViewLines } from "../segments.js";
import type { DashboardState } from "../store.js";
import type { Theme } from "../theme.js";
import { Lines } from "./Lines.js";

export interface ScrolledViewProps {
  readonly state: DashboardState;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  /** Receives the size of the list as drawn (for the scroll keys). */
  readonly layout?: MutableRefObject<ViewLayout>;
}

/** Lays a view out as lines: the state from row `top`, in a width × height box. */
export type LayoutLines = (
  state: DashboardState,
  top: number,
  width: number,
  height: number,
  theme: Theme,
) => ViewLines;

export function ScrolledLines({
  linesOf,
  state,
  top,
  width,
  height,
  layout,
}: ScrolledViewProps & { readonly linesOf: LayoutLines }): ReactElement {
  const theme = useTheme();
  const view = linesOf(state, top, width, height, theme);
  if (layout) layout.current = { rows: view.rows, page: view.page };
  return <Lines lines={view.lines} width={width} height={height} />;
}
