// Pinning the driver and a server to one CPU (Linux, util-linux `taskset`). A sequential
// round trip is two process wake-ups; when the two processes sit on different CPUs of a
// virtual machine, each wake-up can cost tens of µs of hypervisor latency, and whether they
// do is up to the scheduler, so unpinned sequential numbers jump between two modes.
import { execFileSync } from 'node:child_process';

function affinityList(pid: number): string {
  // Prints e.g. "pid 123's current affinity list: 0-3,6".
  const output = execFileSync('taskset', ['-p', '-c', String(pid)], { encoding: 'utf8' });
  return output.slice(output.lastIndexOf(':') + 1).trim();
}

function setAffinity(pid: number, list: string): void {
  // -a: every thread of the process (libuv's pool and V8's helpers too).
  execFileSync('taskset', ['-a', '-p', '-c', list, String(pid)], { stdio: 'ignore' });
}

/** The CPU to pin to: the highest this process may run on; null where pinning is unavailable. */
export function pinnableCpu(): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const cpus = affinityList(process.pid)
      .split(',')
      .flatMap((part) => part.split('-').map(Number));
    return cpus.length < 2 || cpus.some(Number.isNaN) ? null : Math.max(...cpus);
  } catch {
    return null; // no taskset
  }
}

/** Pins this process to `cpu`; the returned function restores its previous affinity. */
export function pinSelf(cpu: number): () => void {
  return pinProcess(process.pid, cpu);
}

/**
 * Pins a running process (every thread of it) to `cpu`; the returned function restores its
 * previous affinity, and does nothing if the process has exited meanwhile.
 */
export function pinProcess(pid: number, cpu: number): () => void {
  const previous = affinityList(pid);
  setAffinity(pid, String(cpu));
  return () => {
    try {
      setAffinity(pid, previous);
    } catch {
      // The process is gone: nothing to restore.
    }
  };
}

/** The command that runs `args` pinned to `cpu`. */
export function pinnedCommand(cpu: number, args: readonly string[]): [string, string[]] {
  return ['taskset', ['-c', String(cpu), ...args]];
}
