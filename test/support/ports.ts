/**
 * A TCP port for a server a test spawns on a port it must know before the server starts (and keep
 * over a restart). It is drawn below the kernel's ephemeral range, so no outgoing connection and no
 * `listen(0)` of another suite can hold it (a port drawn inside that range was once taken by one:
 * EADDRINUSE in CI), and it is not one any local socket uses now (/proc/net/tcp*, read synchronously
 * because the port is chosen when a describe block is built).
 */
import * as fs from 'node:fs';

function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi)) return [lo, hi];
  } catch {
    /* not Linux: the usual range */
  }
  return [32768, 60999];
}

function portsInUse(): Set<number> {
  const used = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    // "  sl  local_address rem_address ...": the local address is HEXIP:HEXPORT.
    for (const line of text.split('\n').slice(1)) {
      const local = line.trim().split(/\s+/)[1];
      if (local) used.add(parseInt(local.split(':')[1], 16));
    }
  }
  return used;
}

export function unusedPort(): number {
  const [lo] = ephemeralRange();
  const min = 10000;
  const max = Math.max(min + 1000, lo); // exclusive
  const used = portsInUse();
  for (let i = 0; i < 1000; i++) {
    const port = min + Math.floor(Math.random() * (max - min));
    if (!used.has(port)) return port;
  }
  throw new Error(`no unused port between ${min} and ${max}`);
}
