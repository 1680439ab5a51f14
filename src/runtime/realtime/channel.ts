// The device's side of its control channel, whatever carries it: the IPC channel of the supervisor that
// started the process (the live lab), or a socket controllers connect to (the device entrypoint,
// socket-channel.ts). The device runtime (device-runtime.ts) is written against this interface only.

import type { FromDevice, ToDevice } from "./protocol.js";

export interface DeviceChannel {
  /** Every message from a controller; `reply` answers the controller that sent it. */
  onMessage(listener: (message: ToDevice, reply: (m: FromDevice) => void) => void): void;
  /** Sends to every controller (events, health, ready). */
  broadcast(message: FromDevice): void;
  /** The device has no reason left to run (IPC: the supervisor went away). A socket channel never says so. */
  onGone(listener: () => void): void;
  close(): void;
}

/** The IPC channel of a process started with one (execa `ipc: true`). */
export class IpcChannel implements DeviceChannel {
  constructor() {
    if (!process.send) throw new Error("this process has no IPC channel");
  }

  onMessage(listener: (message: ToDevice, reply: (m: FromDevice) => void) => void): void {
    process.on("message", (raw) => listener(raw as ToDevice, (m) => this.broadcast(m)));
  }

  broadcast(message: FromDevice): void {
    if (process.connected) process.send!(message);
  }

  onGone(listener: () => void): void {
    process.on("disconnect", listener);
  }

  /** Nothing to do: the process exits next, and the supervisor sees the channel close with it. */
  close(): void {}
}
