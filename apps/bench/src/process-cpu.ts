// The CPU time a server process has used, read from Linux's scheduler statistics: what a
// request costs the server itself, apart from the driver that shares the machine with it.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time process `pid` has used so far, all its threads together, in ns (Linux
 * `/proc/<pid>/task/<tid>/schedstat`, summed); null where that cannot be read.
 */
export function processCpuTimeNs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    let total = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ', 1)[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return Number.isFinite(total) ? total : null;
  } catch {
    return null;
  }
}
