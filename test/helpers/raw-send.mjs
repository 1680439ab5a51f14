// Sends IPv4 packets, given as hex on the command line, from the network namespace it runs in through an
// IPPROTO_RAW socket (the packet carries its own IP header, source address included): the live tests'
// forger. Run it with `ip netns exec NS node test/helpers/raw-send.mjs DST HEX...`; it sends in order and
// exits 1 if any send failed. Plain JavaScript so that it needs no TypeScript loader inside the namespace.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const raw = require("raw-socket");

const [dst, ...packets] = process.argv.slice(2);
if (dst === undefined || packets.length === 0) {
  process.stderr.write("usage: raw-send.mjs DST-IP HEX...\n");
  process.exit(2);
}
const socket = raw.createSocket({ protocol: 255 });
for (const hex of packets) {
  const b = Buffer.from(hex, "hex");
  await new Promise((resolve) =>
    socket.send(b, 0, b.length, dst, (e) => {
      if (e) {
        process.stderr.write(`send: ${e.message}\n`);
        process.exitCode = 1;
      }
      resolve();
    }),
  );
}
socket.close();
