// clabernetes' Topology CRD as vendored (test/fixtures/vendor/clabernetes/SOURCE.md), and what a JSON
// Schema validator alone does not catch about a custom resource: fields its structural schema does not
// declare, which the API server drops.
import { readFileSync } from "node:fs";
import { parse } from "yaml";

/** The openAPIV3Schema of clabernetes' Topology, version v1alpha1. */
export function topologyCrdSchema(): Record<string, unknown> {
  const crd = parse(
    readFileSync(`test/fixtures/vendor/clabernetes/clabernetes.containerlab.dev_topologies.yaml`, "utf8"),
  ) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: Record<string, unknown> } }[] };
  };
  return crd.spec.versions.find((v) => v.name === "v1alpha1")!.schema.openAPIV3Schema;
}

/**
 * Fields the schema does not declare: the API server keeps only declared fields of a structural schema
 * (it prunes the rest without a word), so a misspelt field would pass validation and still be lost.
 */
export function undeclaredFields(value: unknown, schema: Record<string, unknown>, at = ""): string[] {
  if (typeof value !== "object" || value === null) return [];
  if (Array.isArray(value)) {
    const items = schema.items as Record<string, unknown> | undefined;
    return items === undefined ? [] : value.flatMap((v, i) => undeclaredFields(v, items, `${at}[${i}]`));
  }
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  const extra = schema.additionalProperties as Record<string, unknown> | boolean | undefined;
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const sub = props?.[k] ?? (typeof extra === "object" ? extra : undefined);
    if (sub === undefined)
      return extra === true || (props === undefined && extra === undefined) ? [] : [`${at}.${k}`];
    return undeclaredFields(v, sub, `${at}.${k}`);
  });
}
