#!/usr/bin/env node
// The `rocelab` command (the compiled tree's entry; users run the bundle's, scripts/bundle.mjs).
import { main } from "./cli-program.js";

await main(process.argv);
