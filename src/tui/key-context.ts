// What the dashboard's key handlers are given: the key as Ink reports it and what they need to know of the
// lab on screen.

import type { ThresholdPreset } from "../scenario/action.js";

/** What the key handler needs to know about the lab and the screen. */
export interface KeyContext {
  readonly nodes: readonly {
    readonly name: string;
    readonly kind: "switch" | "host";
    readonly status: string;
  }[];
  readonly links: readonly { readonly a: string; readonly b: string; readonly up: boolean }[];
  readonly preset: ThresholdPreset;
  readonly sim: boolean;
  /** Rows in the current view's list (links, ports of the node, QPs, filtered events) and how many fit. */
  readonly rows: number;
  readonly page: number;
  /** The newest event's sequence number. */
  readonly eventsTotal: number;
  /** Index of the busiest node (busiest-node.ts): where the node view opens until one is chosen. */
  readonly busiest?: number;
  /** What `e` says when the watchdog holds nothing: what detection needs here (watchdog-eta.ts). */
  readonly watchdogNeeds?: string;
  /** Ports and priorities the PFC watchdog holds (the `e` chooser). */
  readonly held?: readonly HeldPriority[];
}

/** A key as Ink reports it (only the flags we use). */
export interface KeyPress {
  readonly input: string;
  readonly key: {
    readonly upArrow?: boolean;
    readonly downArrow?: boolean;
    readonly leftArrow?: boolean;
    readonly rightArrow?: boolean;
    readonly pageUp?: boolean;
    readonly pageDown?: boolean;
    readonly home?: boolean;
    readonly end?: boolean;
    readonly return?: boolean;
    readonly escape?: boolean;
    readonly ctrl?: boolean;
    readonly shift?: boolean;
    readonly tab?: boolean;
    readonly backspace?: boolean;
    readonly delete?: boolean;
    readonly meta?: boolean;
  };
}

/** A port and priority the watchdog holds. */
export interface HeldPriority {
  readonly node: string;
  readonly port: number;
  readonly priority: number;
  /** 1 stormed (recovering on its own after restorationTime), 2 latched (only an operator restores it). */
  readonly state: number;
  readonly detected: number;
  readonly restored: number;
}
