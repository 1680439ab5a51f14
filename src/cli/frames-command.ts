// `rocelab frames --pcap FILE`: writes one frame of every kind the lab sends (the frame catalog) as a
// classic pcap, so that Wireshark or tshark can be asked what it makes of each.

import type { Command } from "commander";
import { UnsafeOutputError, writeNewFile } from "../runtime/realtime/safe-files.js";
import { buildFrameCatalog } from "../verify/frame-catalog.js";
import { serializePcap } from "../wire/pcap.js";
import { type CommandIo, fsErrorReason, processIo } from "./pcap-check-command.js";

/** Spacing of the catalog's timestamps: 1 µs, so the frames keep their order in any viewer. */
const FRAME_SPACING_NS = 1000n;

/** Writes the catalog to `file`; returns the exit status. Prints one line per frame (number, name). */
export function runFrames(file: string, io: CommandIo, force = false): number {
  const catalog = buildFrameCatalog();
  const bytes = serializePcap(catalog.map((c, i) => ({ frame: c.frame, tNs: BigInt(i) * FRAME_SPACING_NS })));
  try {
    writeNewFile(file, bytes, { force, flag: "--pcap" });
  } catch (e) {
    io.err(
      e instanceof UnsafeOutputError
        ? `rocelab frames: ${e.message}`
        : `rocelab frames: cannot write ${file}: ${fsErrorReason(e)}`,
    );
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
    .option("--force", "replace the file if it exists")
    .action((opts: { pcap: string; force?: boolean }) => {
      io.setExitCode(runFrames(opts.pcap, io, opts.force ?? false));
    });
}
