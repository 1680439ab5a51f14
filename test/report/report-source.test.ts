// A report names its topology without the machine's directories.
import { join } from "node:path";
import t from "tap";
import { portableSource } from "../../src/report/report.js";

t.test(
  "a topology file below the working directory is named relative to it; others by file name",
  async (t) => {
    t.equal(
      portableSource(join(process.cwd(), "docs", "examples", "x.yaml")),
      join("docs", "examples", "x.yaml"),
    );
    t.equal(portableSource("/somewhere/else/fabric.yaml"), "fabric.yaml");
    t.equal(portableSource("built-in"), "built-in");
    t.equal(portableSource("docs/examples/x.yaml"), "docs/examples/x.yaml");
  },
);
