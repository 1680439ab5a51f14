// The terminal's size, following resizes. Ink 6 has no useWindowSize (that is Ink 7), so this reads the
// output stream's columns/rows and listens to its 'resize' event.
import { useStdout } from "ink";
import { useEffect, useState } from "react";

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/** Used when the stream does not know (not a terminal). */
export const FALLBACK_SIZE: TerminalSize = { columns: 80, rows: 24 };

function read(stdout: NodeJS.WriteStream): TerminalSize {
  return {
    columns: stdout.columns > 0 ? stdout.columns : FALLBACK_SIZE.columns,
    rows: stdout.rows > 0 ? stdout.rows : FALLBACK_SIZE.rows,
  };
}

/** Columns and rows of the terminal Ink draws on, updated on every resize. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => read(stdout));
  useEffect(() => {
    const onResize = () => setSize(read(stdout));
    onResize();
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return size;
}
