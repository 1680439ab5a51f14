// The Grafana dashboard against Grafana's own published dashboard schema: the JSON Schema that Grafana Labs
// generates from Grafana's dashboard kind (vendored in test/fixtures/grafana/, its origin in its $comment).
// Both the committed JSON and what `rocelab grafana` prints are validated, and dashboards broken in the ways
// Grafana rejects are caught, so the check is known to bite.
import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject } from "ajv";
import t from "tap";
import { grafanaDashboard } from "../../src/export/grafana-dashboard.js";
import { rocelab } from "../helpers/cli.js";

const schema = JSON.parse(readFileSync("test/fixtures/grafana/dashboard.jsonschema.json", "utf8"));
// Draft-07 as the schema declares; formats (date-time in the dashboard meta) are not checked: no format
// plugin, and the dashboard carries no such field.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const validate = ajv.compile(schema);

function problems(d: unknown): string[] {
  if (validate(d)) return [];
  return (validate.errors ?? []).map(
    (e: ErrorObject) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`,
  );
}

t.test("the schema is Grafana's dashboard schema, with its origin stated", async (t) => {
  const c = schema.$comment as string;
  t.match(c, /grafana\/grafana-foundation-sdk/);
  t.match(c, /jsonschema\/dashboard\.jsonschema\.json/);
  t.match(c, /commit [0-9a-f]{40}/);
  t.match(c, /Apache-2\.0/);
  t.match(readFileSync("test/fixtures/grafana/LICENSE", "utf8"), /Apache License\s+Version 2\.0/);
  t.equal(schema.$ref, "#/definitions/Dashboard");
  t.ok(schema.definitions.Panel && schema.definitions.GridPos && schema.definitions.VariableModel);
});

t.test("the committed dashboard and the generated one are valid", async (t) => {
  const committed = JSON.parse(readFileSync("docs/grafana/rocelab-dashboard.json", "utf8"));
  t.same(problems(committed), [], "docs/grafana/rocelab-dashboard.json");
  t.same(problems(grafanaDashboard()), [], "grafanaDashboard()");
});

t.test("what `rocelab grafana` prints is valid", async (t) => {
  const r = await rocelab(["grafana"]);
  t.equal(r.exitCode, 0, r.stderr);
  t.same(problems(JSON.parse(r.stdout)), []);
});

interface Mutable {
  [k: string]: unknown;
  panels: { gridPos: { w: number; h: number }; targets: unknown }[];
  templating: { list: { type: string }[] };
}

t.test("dashboards Grafana would reject are rejected", async (t) => {
  const cases: [string, (d: Mutable) => void, RegExp][] = [
    ["a panel wider than the 24-column grid", (d) => (d.panels[1]!.gridPos.w = 25), /gridPos\/w/],
    ["a panel with height 0", (d) => (d.panels[1]!.gridPos.h = 0), /gridPos\/h/],
    ["no schemaVersion", (d) => delete d.schemaVersion, /schemaVersion/],
    ["no templating", (d) => delete (d as Partial<Mutable>).templating, /templating/],
    ["an unknown top-level field", (d) => (d.dashbaord = {}), /additional properties/],
    ["graphTooltip out of range", (d) => (d.graphTooltip = 3), /graphTooltip/],
    ["a variable of an unknown type", (d) => (d.templating.list[1]!.type = "sql"), /list\/1\/type/],
    ["targets not a list", (d) => (d.panels[1]!.targets = { expr: "x" }), /targets/],
  ];
  for (const [what, mutate, where] of cases) {
    const d = structuredClone(grafanaDashboard()) as unknown as Mutable;
    t.same(problems(d), [], `${what}: the unmutated dashboard is valid`);
    mutate(d);
    const p = problems(d);
    t.ok(p.length > 0, `${what}: rejected`);
    t.match(p.join("\n"), where, `${what}: ${p[0]}`);
  }
});
