// The vendored schemas the export is checked against (test/fixtures/vendor/*/SOURCE.md), compiled with
// Ajv. containerlab's schema is draft-07 with one 2020-12 keyword (prefixItems, on brief links) and
// editor annotations (markdownDescription): a draft-07 validator ignores both, as the editors the schema is
// written for do, hence `strict: false`. The CRD's openAPIV3Schema names Kubernetes formats (int64) that
// are not JSON Schema's: formats are not checked.
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { topologyCrdSchema } from "./crd-fields.js";

const VENDOR = "test/fixtures/vendor";

export function clabValidator(): ValidateFunction {
  const schema = JSON.parse(readFileSync(`${VENDOR}/containerlab/clab.schema.json`, "utf8")) as object;
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

export function crdValidator(): ValidateFunction {
  return new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(topologyCrdSchema());
}

/** Ajv's errors, one line each, for a test's diagnostic. */
export function errorsOf(v: ValidateFunction): string {
  return (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join("\n");
}
