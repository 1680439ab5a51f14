// Subscribes a component to the dashboard store (the model outside React) and re-renders on each new,
// immutable state; unsubscribes when the component goes away.
import { useEffect, useState } from "react";
import type { DashboardState, DashboardStore } from "../store.js";

/** The store's latest state. */
export function useDashboardState(store: DashboardStore): DashboardState {
  const [state, setState] = useState(() => store.getState());
  useEffect(() => {
    // The store may have moved on between the first render and this effect.
    setState(store.getState());
    return store.subscribe(setState);
  }, [store]);
  return state;
}
