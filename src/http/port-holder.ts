import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/*
 * Which process listens on a TCP port, when this machine can say (Linux: /proc/net/tcp
 * and tcp6 name the listening socket's inode, and /proc/PID/fd links name the sockets each
 * process holds; other users' processes are visible only to root). "The port is in use"
 * alone left an operator to find out with ss or lsof, which the image does not have.
 */

const LISTEN = '0A';

/** "pid 1234 (node server.js)", or null when it cannot be known here. */
export function describePortHolder(port: number): string | null {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) return `pid ${pid} (${commandOf(pid)})`;
    }
  }
  return null;
}

/** Inodes of the sockets listening on `port`, IPv4 and IPv6. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (!local || fields[3] !== LISTEN) continue;
      if (local.slice(local.lastIndexOf(':') + 1) === hexPort && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

function commandOf(pid: string): string {
  try {
    const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    // One line, short: it ends up in an error message.
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    const clean = line.replace(/[\u0000-\u001f\u007f]/g, ' ');
    return clean.length > 120 ? `${clean.slice(0, 120)}…` : clean || 'unknown command';
  } catch {
    return 'unknown command';
  }
}
