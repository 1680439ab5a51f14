// The top line: the four views (the active one highlighted), the lab, and the two keys everyone needs.
import type { ReactElement } from "react";
import { type Segment, seg } from "../segments.js";
import { Tone } from "../theme.js";
import type { Tab } from "../ui-state.js";
import { Line } from "./Line.js";

const LABELS: Record<Tab, string> = { fabric: "Fabric", node: "Node", flows: "Flows", events: "Events" };
const ORDER: readonly Tab[] = ["fabric", "node", "flows", "events"];

export interface TabBarProps {
  readonly tab: Tab;
  readonly title: string;
  readonly width: number;
}

/** The tab bar. */
export function TabBar({ tab, title, width }: TabBarProps): ReactElement {
  const left: Segment[] = [];
  ORDER.forEach((t, i) => {
    const label = `${i + 1} ${LABELS[t]}`;
    left.push(t === tab ? seg(`[${label}]`, Tone.Selected) : seg(` ${label} `, Tone.Dim), seg(" "));
  });
  const used = left.reduce((w, s) => w + s.text.length, 0);
  // The lab's name gives way before the two keys, and those before the tabs.
  const right = [` ${title}  ? help  q quit `, " ? help  q quit ", " ? help "].find(
    (r) => width - used - r.length >= 1,
  );
  const segments = right
    ? [...left, seg(" ".repeat(width - used - right.length)), seg(right, Tone.Dim)]
    : left;
  return <Line segments={segments} width={width} />;
}
