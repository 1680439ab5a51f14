// `rocelab topology` prints a link aggregation group as one aggregated link with its members (and names
// the group in the routes through it); --json lists the groups beside the physical links.
import t from "tap";
import { lagsJson, linkLines } from "../../src/cli/topology-links.js";
import { loadTopology } from "../../src/scenario/topology-file.js";
import { rocelab } from "../helpers/cli.js";

const topo = loadTopology("docs/examples/lag.yaml");

t.test("a group is one link line with its members; other links as before", (t) => {
  const lines = linkLines(topo);
  t.match(lines[0], /^ {2}leaf1:po1 +<-> leaf2:po1 +4 × 100Gb\/s = 400Gb\/s 1us \(lacp, fast\)$/);
  t.same(
    lines.slice(1, 5).map((l) => l.trim()),
    [1, 2, 3, 4].map((p) => `member leaf1:eth${p} <-> leaf2:eth${p}`),
  );
  t.equal(lines.length, 5 + 8, "the group (1 + 4 member lines) and the 8 host links");
  t.notOk(
    lines.slice(5).some((l) => /leaf1:eth[1-4] /.test(l)),
    "members are not listed again as links",
  );
  t.same(lagsJson(topo), [
    {
      name: "po1",
      mode: "lacp",
      rate: "fast",
      a: "leaf1",
      b: "leaf2",
      members: [1, 2, 3, 4].map((p) => ({ a: `leaf1:eth${p}`, b: `leaf2:eth${p}` })),
      rateBps: 400e9,
    },
  ]);
  t.end();
});

t.test("rocelab topology --routes names the group on the routes through it", async (t) => {
  const r = await rocelab(["topology", "docs/examples/lag.yaml", "--routes"]);
  t.equal(r.exitCode, 0, r.stderr);
  t.match(r.stdout, /leaf1:po1 +<-> leaf2:po1/);
  t.match(r.stdout, /via [\d.]+ po1 \(named by eth1\)/);
  t.notMatch(r.stdout, /^ {2}leaf1:eth1 +<->/m, "the member is not a link line of its own");
  const json = JSON.parse((await rocelab(["topology", "docs/examples/lag.yaml", "--json"])).stdout);
  t.equal(json.lags[0].members.length, 4);
  t.equal(json.links.length, 12, "--json keeps every physical link");
});
