// The dashboard's one keyboard handler: every key goes through the pure reducer (reduceKey), which returns
// the next UI state and, for actions, an effect for the caller to carry out.
import { useInput } from "ink";
import { type Dispatch, type MutableRefObject, type SetStateAction, useRef } from "react";
import type { Effect } from "../effect.js";
import type { KeyContext, KeyPress } from "../key-context.js";
import type { ViewLayout } from "../segments.js";
import { reduceKey, splitKeys, type UiState } from "../ui-state.js";

/**
 * Routes keys to `reduceKey`. The latest UI state is kept in a ref as well as in React state, so keys typed
 * faster than React re-renders (a paste, a quick sequence) each see the state the previous one left. The
 * list size comes from `layout`, which the view on screen filled in when it was drawn.
 */
export function useDashboardKeys(
  ui: UiState,
  setUi: Dispatch<SetStateAction<UiState>>,
  context: Omit<KeyContext, "rows" | "page">,
  layout: MutableRefObject<ViewLayout>,
  onEffect: (effect: Effect) => void,
): void {
  const uiRef = useRef(ui);
  const ctxRef = useRef(context);
  const effectRef = useRef(onEffect);
  uiRef.current = ui;
  ctxRef.current = context;
  effectRef.current = onEffect;
  useInput((input, key) => {
    // Keys that arrive together come as one string: take them one by one.
    const presses: KeyPress[] = input.length > 1 ? splitKeys(input) : [{ input, key }];
    for (const press of presses) {
      const { rows, page } = layout.current;
      const r = reduceKey(uiRef.current, press, { ...ctxRef.current, rows, page });
      if (r.ui !== uiRef.current) {
        uiRef.current = r.ui;
        setUi(r.ui);
      }
      if (r.effect) effectRef.current(r.effect);
    }
  });
}
