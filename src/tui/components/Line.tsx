// One screen line of styled segments, cut to the width: the building block of every view.
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import { useTheme } from "../hooks/use-theme.js";
import { fitLine, type Segment } from "../segments.js";
import { toneStyle } from "../theme.js";

export interface LineProps {
  readonly segments: readonly Segment[];
  readonly width: number;
}

/** Draws `segments` on exactly one row of `width` columns. */
export function Line({ segments, width }: LineProps): ReactElement {
  const theme = useTheme();
  const parts: ReactElement[] = [];
  for (const s of fitLine(segments, width)) {
    // An empty segment draws nothing (and keyed by its column it would share the next one's key).
    if (s.text.length === 0) continue;
    parts.push(
      <Text key={parts.length} {...toneStyle(theme, s.tone)}>
        {s.text}
      </Text>,
    );
  }
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text wrap="truncate-end">{parts.length > 0 ? parts : " "}</Text>
    </Box>
  );
}
