// YAML as the exported files carry it: YAML 1.1 quoting, so that Go's YAML readers (containerlab,
// clabernetes, kubectl) never take a MAC address such as 02:00:00:01:01:00 for a base-60 number or "on"
// for a boolean; an optional comment block on top.

import { Document } from "yaml";

export function yamlText(value: unknown, comment?: readonly string[]): string {
  const doc = new Document(value, { version: "1.1" });
  if (comment !== undefined && comment.length > 0) doc.commentBefore = comment.map((l) => ` ${l}`).join("\n");
  return doc.toString({ lineWidth: 0 });
}
