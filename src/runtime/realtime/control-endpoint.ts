// Where a device's socket control channel listens, or where a controller finds it:
//   tcp://HOST:PORT     (HOST a name, an IPv4 address or [an IPv6 address]; 0.0.0.0 listens everywhere)
//   unix:PATH           (a Unix socket; PATH absolute, or relative to what the caller resolves it against)

export type ControlEndpoint =
  | { readonly kind: "tcp"; readonly host: string; readonly port: number }
  | { readonly kind: "unix"; readonly path: string };

/** Longest Unix socket path Linux takes (sizeof sun_path minus the terminating NUL). */
export const MAX_UNIX_PATH = 107;

export const ENDPOINT_FORMS = "tcp://HOST:PORT or unix:PATH";

/** The endpoint `text` names, or a sentence saying what is wrong with it. */
export function parseControlEndpoint(text: string): ControlEndpoint | string {
  if (text.startsWith("unix:")) {
    const path = text.slice("unix:".length).replace(/^\/\/(?=\/)/, "");
    if (path === "") return `"${text}" names no socket path (${ENDPOINT_FORMS})`;
    if (Buffer.byteLength(path) > MAX_UNIX_PATH)
      return `"${text}": a Unix socket path has at most ${MAX_UNIX_PATH} bytes (sun_path), this one ${Buffer.byteLength(path)}`;
    return { kind: "unix", path };
  }
  const m = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text);
  if (!m) return `"${text}" is not ${ENDPOINT_FORMS}`;
  const port = Number(m[2]);
  if (!(port >= 1 && port <= 65535)) return `"${text}": port ${m[2]} is not 1-65535`;
  return { kind: "tcp", host: m[1]!.replace(/^\[|\]$/g, ""), port };
}

export function formatControlEndpoint(e: ControlEndpoint): string {
  if (e.kind === "unix") return `unix:${e.path}`;
  return `tcp://${e.host.includes(":") ? `[${e.host}]` : e.host}:${e.port}`;
}
