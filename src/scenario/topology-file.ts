// Loading a topology file: read, parse against the schema, resolve (topology.ts) and validate
// (validate.ts): every problem names the file, the line and column, the path and what is allowed.

import { basename, extname } from "node:path";
import { SourceDocument } from "./config-error.js";
import { resolveLab } from "./resolved-lab.js";
import { topologyFile } from "./schema.js";
import { resolveTopology, type Topology } from "./topology.js";
import { refuseInvalid } from "./validate.js";

/** Reads and validates a topology file; throws ConfigError naming file, line and path on any problem. */
export function loadTopology(file: string): Topology {
  const doc = SourceDocument.read(file);
  doc.expectKind("topology");
  const parsed = doc.parse(topologyFile);
  const topology = resolveTopology(parsed, file, doc, basename(file, extname(file)));
  // Settings that cannot work (validate.ts) are refused here, where they are written.
  refuseInvalid(resolveLab(topology), file, doc);
  return topology;
}
