// Entry point of a lab's supervisor (supervisor-program.ts), started detached by `rocelab up`. The bundle's
// entry at this path starts the same program from V8's code cache (scripts/bundle.mjs).
import { main } from "./supervisor-program.js";

main(process.argv);
