// A spinner frame that advances while `active`, for steps in progress.
import { useEffect, useState } from "react";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The current spinner character. */
export function useSpinner(active: boolean, intervalMs = 100): string {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setFrame((f) => (f + 1) % FRAMES.length), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return FRAMES[frame]!;
}
