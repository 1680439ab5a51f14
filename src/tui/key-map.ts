// Every key of the dashboard, in one table: the help overlay shows it and docs/tui.md lists the same keys.

/** A group of keys in the help overlay. */
export interface KeyGroup {
  readonly title: string;
  readonly keys: readonly (readonly [keys: string, what: string])[];
}

export const KEY_HELP: readonly KeyGroup[] = [
  {
    title: "views",
    keys: [
      ["1 2 3 4", "fabric, node, flows, events (Tab, Shift-Tab cycle)"],
      ["?  q  Ctrl-C", "this help (Esc or ? closes); quit (tears a live lab down)"],
    ],
  },
  {
    title: "move",
    keys: [
      ["← → or n p", "node view: previous / next node"],
      ["↑ ↓", "scroll; node view: choose a port"],
      ["PgUp PgDn Home End", "page, top, bottom (events: End follows)"],
      ["f  v", "events: next filter; flows: rates / paths / status"],
    ],
  },
  {
    title: "break things",
    keys: [
      ["i", "incast N-to-1 (default 4 senders x 4MB into the last host)"],
      ["s", "stop all traffic"],
      ["l", "link down / up (choose a link)"],
      ["k  r", "kill / restart a node (choose one)"],
      ["t", "threshold presets: aggressive, balanced, conservative"],
      ["u", "background UDP (kernel datagrams) between two hosts"],
      ["x  e", "PFC storm from a NIC / re-enable PFC the watchdog holds"],
    ],
  },
  {
    title: "simulation (--runtime sim)",
    keys: [
      ["space", "pause / resume"],
      ["+  -", "faster / slower (halves / doubles the dilation)"],
    ],
  },
  {
    title: "in a prompt",
    keys: [["Tab ↑ ↓  Enter  Esc", "next / previous field or choice, confirm, cancel"]],
  },
] as const;

/** What the markers on the fabric and node views mean. */
export const MARKER_HELP: readonly (readonly [marker: string, what: string])[] = [
  ["X", "sends PFC XOFF: holds its upstream paused"],
  ["P / PAUSED", "its egress is paused by the peer's PFC"],
  ["E", "queue building / CE marking (ECN)"],
  ["D", "dropping packets"],
  ["S / L", "PFC watchdog: stormed / latched off (e re-enables)"],
  ["DOWN  KILLED", "link down, device process not running"],
] as const;
