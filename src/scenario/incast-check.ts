// What an incast may ask of a topology, checked the same way for a scenario step and for a live
// `rocelab inject incast`: the receiver is a host, and there are enough other hosts to send.

/** The problem with an incast of `from` senders to `to` among `hosts`, or null when it fits. */
export function incastProblem(hosts: readonly string[], to: string, from: number): string | null {
  if (!hosts.includes(to)) return `"${to}" is not a host (hosts: ${hosts.join(", ")})`;
  if (from > hosts.length - 1)
    return `${from} senders asked, the topology has ${hosts.length - 1} other hosts`;
  return null;
}
