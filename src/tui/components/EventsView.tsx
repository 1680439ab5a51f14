// The event log: pauses, marks, CNPs, drops, link and process failures, with emulated timestamps. It
// follows new events until scrolled; while scrolled it holds still (new events wait below).
import type { MutableRefObject, ReactElement } from "react";
import type { LabEvent } from "../../lab/lab.js";
import { type EventFilter, eventGroup, matchesFilter } from "../event-filter.js";
import { describeLogged } from "../event-text.js";
import { formatEmulated, padLeft, padRight } from "../format.js";
import { pickFit, type Segment, seg, type ViewLayout, type ViewLines } from "../segments.js";
import type { DashboardState, LoggedEvent } from "../store.js";
import { Tone } from "../theme.js";
import type { EventsScroll } from "../ui-state.js";
import { Lines } from "./Lines.js";

function toneOf(e: LabEvent): Tone {
  switch (eventGroup(e)) {
    case "pfc":
      return Tone.Pause;
    case "ecn":
      return Tone.Warn;
    case "drops":
      return Tone.Bad;
    case "flows":
      return Tone.Good;
    default:
      if (e.kind === "link-up" || e.detail === "process restarted") return Tone.Good;
      return e.kind === "info" && !/killed|crash|failed/.test(e.detail ?? "") ? Tone.Accent : Tone.Bad;
  }
}

/** The events the log shows under a filter, oldest first (up to `frozenAt` while scrolled). */
export function visibleEvents(
  events: readonly LoggedEvent[],
  filter: EventFilter,
  frozenAt: number | null,
): LoggedEvent[] {
  return events.filter((l) => (frozenAt === null || l.seq <= frozenAt) && matchesFilter(l.event, filter));
}

/** The events view's lines. */
export function eventsLines(
  state: DashboardState,
  scroll: EventsScroll,
  height: number,
  width = 80,
): ViewLines {
  const shown = visibleEvents(state.events, scroll.filter, scroll.frozenAt);
  const page = Math.max(1, height - 2);
  const offset = Math.min(scroll.offset, Math.max(0, shown.length - page));
  const end = shown.length - offset;
  const window = shown.slice(Math.max(0, end - page), end);
  const waiting = scroll.frozenAt === null ? 0 : state.eventsTotal - scroll.frozenAt;
  const follow = (long: boolean) =>
    offset === 0
      ? seg(long ? "following new events" : "following", Tone.Good)
      : seg(
          long
            ? `scrolled: ${offset} up${waiting > 0 ? `, ${waiting} new below` : ""} (End follows)`
            : `${offset} up${waiting > 0 ? `, ${waiting} new` : ""} (End)`,
          Tone.Warn,
        );
  const filter = [seg("filter "), seg(scroll.filter, Tone.Heading), seg(" (f)   ")];
  const lines: Segment[][] = [
    pickFit(
      [
        [...filter, seg(`${shown.length} shown, ${state.eventsTotal} since start   `), follow(true)],
        [...filter, seg(`${shown.length} shown of ${state.eventsTotal}   `), follow(true)],
        [...filter, seg(`${shown.length} of ${state.eventsTotal}  `), follow(false)],
      ],
      width,
    ),
    [seg(` ${padLeft("TIME", 12)}  ${padRight("DEVICE", 8)} ${padRight("KIND", 10)} WHAT`, Tone.Heading)],
  ];
  if (shown.length === 0) lines.push([seg(" no events yet", Tone.Dim)]);
  for (const { event } of window) {
    lines.push([
      seg(` ${padLeft(formatEmulated(event.t), 12)}  `, Tone.Dim),
      seg(`${padRight(event.device, 8)} `),
      seg(`${padRight(event.kind, 10)} `, toneOf(event)),
      seg(describeLogged(event, state.snapshot)),
    ]);
  }
  return { lines: lines.slice(0, height), rows: shown.length, page };
}

export interface EventsViewProps {
  readonly state: DashboardState;
  readonly scroll: EventsScroll;
  readonly width: number;
  readonly height: number;
  /** Receives the size of the log as drawn (for the scroll keys). */
  readonly layout?: MutableRefObject<ViewLayout>;
}

/** The events view. */
export function EventsView({ state, scroll, width, height, layout }: EventsViewProps): ReactElement {
  const view = eventsLines(state, scroll, height, width);
  if (layout) layout.current = { rows: view.rows, page: view.page };
  return <Lines lines={view.lines} width={width} height={height} />;
}
