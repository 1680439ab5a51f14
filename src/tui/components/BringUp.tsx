// Bring-up progress: each step of starting the lab, done ones ticked, the current one spinning.
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import { useSpinner } from "../hooks/use-spinner.js";
import { useTheme } from "../hooks/use-theme.js";
import { Tone, toneStyle } from "../theme.js";

export interface BringUpStep {
  readonly id: number;
  readonly text: string;
}

export interface BringUpProps {
  readonly title: string;
  readonly steps: readonly BringUpStep[];
  /** Every step is done. */
  readonly done: boolean;
  /** The step that failed, and why. */
  readonly error: string | null;
}

/** The progress of a bring-up. */
export function BringUp({ title, steps, done, error }: BringUpProps): ReactElement {
  const theme = useTheme();
  const spinner = useSpinner(!done && error === null);
  return (
    <Box flexDirection="column">
      <Text {...toneStyle(theme, Tone.Heading)}>{title}</Text>
      {steps.map((step, i) => {
        const last = i === steps.length - 1;
        const mark = last && error !== null ? "✗" : last && !done ? spinner : "✓";
        const tone = last && error !== null ? Tone.Bad : last && !done ? Tone.Accent : Tone.Good;
        return (
          <Text key={step.id}>
            {"  "}
            <Text {...toneStyle(theme, tone)}>{mark}</Text> {step.text}
          </Text>
        );
      })}
      {error !== null ? <Text {...toneStyle(theme, Tone.Bad)}>{`  ${error}`}</Text> : null}
    </Box>
  );
}
