// `rocelab frames --pcap FILE`: writes one frame of every kind the lab sends (the frame catalog) as a
// classic pcap, so that Wireshark or tshark can be asked what it makes of each.

import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { buildFrameCatalog } from "../verify/frame-catalog.js";
import { serializePcap } from "../wire/pcap.js";
import { type CommandIo, fsErrorReason, processIo } from "./pcap-check-command.js";

/** Spacing of the catalog's timestamps: 1 µs, so the frames keep their order in any viewer. */
const FRAME_SPACING_NS = 1000n;

/** Writes the catalog to `file`; returns the exit status. Prints one line per frame (number, name). */
export function runFrames(file: string, io: CommandIo): number {
  const catalog = buildFrameCatalog();
  const bytes = serializePcap(catalog.map((c, i) => ({ frame: c.frame, tNs: BigInt(i) * FRAME_SPACING_NS })));
  try {
    writeFileSync(file, bytes);
  } catch (e) {
    io.err(`rocelab frames: cannot write ${file}: ${fsErrorReason(e)}`);
    return 1;
  }
  const width = Math.max(...catalog.map((c) => c.name.length));
  catalog.forEach((c, i) => {
    io.out(`${String(i + 1).padStart(3)}  ${c.name.padEnd(width)}  ${c.description}`);
  });
  io.out(`wrote ${catalog.length} frames to ${file}`);
  return 0;
}

/** Registers `frames --pcap FILE` on `program`. */
export function registerFramesCommand(program: Command, io: CommandIo = processIo): void {
  program
    .command("frames")
    .description("write one frame of every kind the lab sends as a pcap capture, for Wireshark or tshark")
    .requiredOption("--pcap <file>", "capture file to write (classic pcap, Ethernet, 1 µs apart)")
    .action((opts: { pcap: string }) => {
      io.setExitCode(runFrames(opts.pcap, io));
    });
}
