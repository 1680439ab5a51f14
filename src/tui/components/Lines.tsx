// A block of lines, exactly `height` rows tall (padded with blank rows), so the layout never jumps.
import { Box } from "ink";
import type { ReactElement } from "react";
import type { Segment } from "../segments.js";
import { Line } from "./Line.js";

export interface LinesProps {
  readonly lines: readonly (readonly Segment[])[];
  readonly width: number;
  readonly height: number;
}

/** Draws the first `height` lines, and blank rows below them. */
export function Lines({ lines, width, height }: LinesProps): ReactElement {
  const rows: ReactElement[] = [];
  for (let row = 0; row < height; row++) {
    rows.push(<Line key={row} segments={lines[row] ?? []} width={width} />);
  }
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {rows}
    </Box>
  );
}
