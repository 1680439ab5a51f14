// Entry point of a live device process (device-program.ts): `node dist/main/device-main.js --lab NAME
// --node NODE`, started by the lab supervisor. The bundle's entry at this path starts the same program
// from V8's code cache (scripts/bundle.mjs).
import { main } from "./device-program.js";

main(process.argv);
