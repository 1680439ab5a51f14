// The outside judge for the switch's LLDP agent: the LLDPDUs a switch really sends (not hand-built ones)
// decode in Wireshark's tshark as LLDP with the chassis MAC, the interface name as port ID, the TTL, the
// system name and the port's management address, with no malformed frame and no expert warning.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import t from "tap";
import { EtherType, ethType } from "../../src/wire/ethernet.js";
import { serializePcap } from "../../src/wire/pcap.js";
import { tempDir } from "../helpers/temp-dir.js";
import { portIp, SwitchHarness } from "../switch/harness.js";

t.test("tshark decodes the switch's LLDPDUs field for field", async (t) => {
  const version = await execa("tshark", ["--version"], { reject: false });
  t.equal(version.exitCode, 0, "tshark runs (installed by the project's set-up)");
  const h = new SwitchHarness({
    ports: 3,
    settings: { lldp: { enabled: true, txInterval: 30e9, holdMultiplier: 4 } },
  });
  h.sw.start(0);
  h.run(1000);
  const sent = h.env.sent.filter((s) => ethType(s.frame) === EtherType.LLDP);
  t.equal(sent.length, 3, "one LLDPDU per port");
  const file = join(tempDir("lldp-"), "lldp.pcap");
  writeFileSync(file, serializePcap(sent.map((s) => ({ frame: s.frame, tNs: s.t }))));
  const fields = [
    "frame.protocols",
    "lldp.chassis.id.mac",
    "lldp.port.id",
    "lldp.time_to_live",
    "lldp.tlv.system.name",
    "lldp.port.desc",
    "lldp.mgn.addr.ip4",
    "_ws.malformed",
    "_ws.expert.severity",
  ];
  const r = await execa("tshark", [
    "-r",
    file,
    "-T",
    "fields",
    "-E",
    "separator=|",
    ...fields.flatMap((f) => ["-e", f]),
  ]);
  const rows = r.stdout
    .trim()
    .split("\n")
    .map((l) => l.split("|"));
  t.equal(rows.length, 3);
  rows.forEach((row, i) => {
    const port = i + 1;
    const ip = portIp(port);
    t.same(
      row,
      [
        "eth:ethertype:lldp",
        "02:00:00:00:01:00",
        `eth${port}`,
        "120",
        "sw",
        `eth${port}`,
        `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`,
        "",
        "",
      ],
      `eth${port}'s LLDPDU`,
    );
  });
});
