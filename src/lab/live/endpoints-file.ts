// The endpoints file of `rocelab attach`: the topology of a fabric whose devices something else started
// (containerlab, Kubernetes, the device entrypoint by hand), and where each device's control channel is.
//
//   topology: fabric.yaml            # relative to this file, or "default" (the built-in fabric)
//   dilation: 1000                   # what every device file says
//   reactionMs: 10                   # likewise (rocelab device-config --reaction-ms; default 10)
//   lab: demo                        # optional: the devices' lab name must be this one
//   tokenFile: control.token         # default token of every device (relative to this file)
//   connectTimeoutSeconds: 60        # how long attach waits for every device at start
//   devices:
//     leaf1: tcp://172.20.20.2:7700
//     h1: { endpoint: "unix:/run/rocelab-dev/h1.sock", tokenFile: null }
//
// Validated with its topology: problems name the file, the line, the path and what is allowed.

import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { readTokenFile } from "../../runtime/realtime/control-auth.js";
import {
  type ControlEndpoint,
  ENDPOINT_FORMS,
  parseControlEndpoint,
} from "../../runtime/realtime/control-endpoint.js";
import { MAX_DILATION, MIN_DILATION } from "../../runtime/realtime/dilation.js";
import { ConfigError, type ConfigProblem, SourceDocument } from "../../scenario/config-error.js";
import { defaultTopology, type Topology } from "../../scenario/topology.js";
import { loadTopology } from "../../scenario/topology-file.js";
import { LIVE_REACTION_MS } from "./device-inits.js";

const endpointText = z.string().refine((s) => typeof parseControlEndpoint(s) !== "string", {
  message: `a control endpoint: ${ENDPOINT_FORMS} (for example tcp://172.20.20.2:7700)`,
});

const device = z.union([
  endpointText,
  z
    .object({
      endpoint: endpointText,
      /** This device's token (null: it takes none, a Unix socket). */
      tokenFile: z.string().min(1).nullable().optional(),
    })
    .strict(),
]);

export const endpointsFileSchema = z
  .object({
    topology: z.string().min(1),
    dilation: z.number().min(MIN_DILATION).max(MAX_DILATION),
    lab: z
      .string()
      .regex(/^[a-z][a-z0-9]{0,15}$/, "a lab name: 1-16 lowercase letters and digits")
      .optional(),
    tokenFile: z.string().min(1).optional(),
    connectTimeoutSeconds: z.number().positive().max(3600).optional(),
    /** The device files' reactionMs (rocelab device-config --reaction-ms). */
    reactionMs: z.number().positive().max(10_000).optional(),
    devices: z.record(z.string(), device),
  })
  .strict();

export interface AttachedDevice {
  readonly node: string;
  readonly kind: "switch" | "nic";
  readonly endpoint: ControlEndpoint;
  readonly token: Buffer | null;
}

export interface Endpoints {
  readonly file: string;
  readonly topology: Topology;
  readonly dilation: number;
  readonly reactionMs: number;
  readonly lab: string | undefined;
  readonly connectTimeoutMs: number;
  readonly devices: readonly AttachedDevice[];
}

export const DEFAULT_CONNECT_TIMEOUT_S = 60;

/** Reads an endpoints file and its topology; every problem is a ConfigError naming the file. */
export function loadEndpoints(file: string): Endpoints {
  const doc = SourceDocument.read(file);
  const parsed = doc.parse(endpointsFileSchema);
  const here = dirname(resolve(file));
  const near = (p: string): string => (isAbsolute(p) ? p : resolve(here, p));
  const topology = parsed.topology === "default" ? defaultTopology() : loadTopology(near(parsed.topology));
  const problems: ConfigProblem[] = [];
  const nodes = new Map(topology.nodes.map((n) => [n.name, n]));
  const tokens = new Map<string, Buffer>();
  const token = (path: (string | number)[], p: string): Buffer | null => {
    const abs = near(p);
    if (tokens.has(abs)) return tokens.get(abs)!;
    try {
      const t = readTokenFile(abs);
      tokens.set(abs, t);
      return t;
    } catch (e) {
      problems.push(doc.problem(path, (e as Error).message));
      return null;
    }
  };
  const devices: AttachedDevice[] = [];
  for (const [name, entry] of Object.entries(parsed.devices)) {
    const node = nodes.get(name);
    if (!node) {
      problems.push(
        doc.problem(
          ["devices", name],
          `no node "${name}" in topology ${topology.name} (nodes: ${[...nodes.keys()].join(", ")})`,
        ),
      );
      continue;
    }
    const text = typeof entry === "string" ? entry : entry.endpoint;
    const endpoint = parseControlEndpoint(text) as ControlEndpoint;
    const own = typeof entry === "string" ? undefined : entry.tokenFile;
    const where: (string | number)[] = own !== undefined ? ["devices", name, "tokenFile"] : ["tokenFile"];
    const file = own === undefined ? parsed.tokenFile : own;
    if (endpoint.kind === "tcp" && (file === undefined || file === null)) {
      problems.push(
        doc.problem(
          ["devices", name],
          `${text} is a TCP endpoint: it needs a tokenFile (for this device, or at the top)`,
        ),
      );
      continue;
    }
    const resolved =
      endpoint.kind === "unix" ? { kind: "unix" as const, path: near(endpoint.path) } : endpoint;
    devices.push({
      node: name,
      kind: node.kind === "switch" ? "switch" : "nic",
      endpoint: resolved,
      token: file === undefined || file === null ? null : token(where, file),
    });
  }
  const missing = [...nodes.keys()].filter((n) => !(n in parsed.devices));
  if (missing.length > 0)
    problems.push(
      doc.problem(
        ["devices"],
        `every node of topology ${topology.name} needs an endpoint; missing: ${missing.join(", ")}`,
      ),
    );
  if (problems.length > 0) throw new ConfigError(file, problems);
  return {
    file: resolve(file),
    topology,
    dilation: parsed.dilation,
    reactionMs: parsed.reactionMs ?? LIVE_REACTION_MS,
    lab: parsed.lab,
    connectTimeoutMs: (parsed.connectTimeoutSeconds ?? DEFAULT_CONNECT_TIMEOUT_S) * 1000,
    devices,
  };
}
