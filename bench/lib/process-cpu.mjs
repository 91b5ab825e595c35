// CPU time used so far by every process of a given executable name (Linux /proc; undefined elsewhere): what the
// services sharing the machine (PostgreSQL, RabbitMQ) spend during a benchmark pass.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux the benchmarks run on

/**
 * Milliseconds of user + system CPU of all live processes whose command name is one of `names`, plus that of their
 * exited children (a PostgreSQL backend that closed during the pass is counted through the postmaster).
 */
export function processCpuMs(names) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    if (!names.includes(stat.slice(open + 1, close))) continue;
    const fields = stat.slice(close + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]); // utime, stime, cutime, cstime
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}
