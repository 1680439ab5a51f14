import t from "tap";
import { featureLine } from "../../src/tui/feature-lines.js";
import { switchTables } from "../helpers/stats-tables.js";

const text = (k: Record<string, number>) =>
  featureLine({ ...switchTables().node, ...k })
    ?.map((s) => s.text)
    .join("") ?? null;

t.test("the switch view's feature line shows only what is active", (t) => {
  t.equal(text({ buffer_used_bytes: 10 }), null, "nothing active: no line");
  t.equal(
    text({ elephant_table_flows: 10, elephant_flows_detected: 2, drop_yellow: 5 }),
    "elephants 2 of 10 flows tracked  yellow drops 5",
  );
  t.match(
    text({ adaptive_buffer_changes: 3, adaptive_buffer_threshold_bytes: 128_000, drop_adaptive_wred: 7 }),
    /^adaptive buffer WRED from 128/,
  );
  t.match(text({ adaptive_buffer_changes: 4 }), /^adaptive buffer tail drop \(4 changes, 0 dropped\)$/);
  t.equal(
    text({ vxlan_encap_packets: 12, vxlan_decap_packets: 3, vxlan_ce_copied: 1, vxlan_ce_lost: 0 }),
    "VTEP encap 12 decap 3 CE copied 1 lost 0",
  );
  t.end();
});
