// The `rocelab` command.
import { Command } from "commander";

const program = new Command();
program
  .name("rocelab")
  .description(
    "A RoCEv2 lossless data-center network testbed: userspace switches and RDMA NICs on real frames.",
  )
  .showHelpAfterError();

program
  .command("tui")
  .description("bring up a lab and open the live dashboard (the main job: `sudo npm run testbed`)")
  .action(() => {
    process.stderr.write(
      "rocelab tui: the live lab and dashboard are not built yet (see README, 'What works').\n",
    );
  });

await program.parseAsync(process.argv);
