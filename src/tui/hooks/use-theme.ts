// The colour theme of the dashboard (ThemeContext), for components that style text.
import { useContext } from "react";
import { type Theme, ThemeContext } from "../theme.js";

/** The current theme: colour or plain text with markers. */
export function useTheme(): Theme {
  return useContext(ThemeContext);
}
