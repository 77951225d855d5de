// How busy the machine was with work other than this benchmark during a stretch of the run:
// CPU time used on the whole machine (/proc/stat, steal included) minus the CPU time of this
// process and the servers it spawned and reaped (/proc/self/stat), as a share of all CPUs.
// A benchmark on a shared machine cannot prevent that interference; it can report it.
import { readFileSync } from 'node:fs';

interface Ticks {
  /** All CPUs, all states. */
  readonly total: number;
  /** All CPUs, not idle and not waiting for I/O. */
  readonly busy: number;
  /** This process and its reaped children. */
  readonly own: number;
}

/** Clock ticks from procfs, or undefined where procfs is unavailable (not Linux). */
function readTicks(): Ticks | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const cpu = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    const total = cpu.reduce((sum, value) => sum + value, 0);
    const busy = total - cpu[3] - cpu[4];
    // The command name (field 2) may contain spaces; fields after ')' start at field 3.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0); // utime stime cutime cstime
    return { total, busy, own };
  } catch {
    return undefined;
  }
}

/**
 * Starts a window; the returned function ends it and gives the share (0..1) of the machine's
 * CPU time that other processes used meanwhile, or null where it cannot be known.
 */
export function startLoadWindow(): () => number | null {
  const start = readTicks();
  return () => {
    const end = readTicks();
    if (start === undefined || end === undefined || end.total === start.total) return null;
    const others = end.busy - start.busy - (end.own - start.own);
    return Math.max(0, others / (end.total - start.total));
  };
}
