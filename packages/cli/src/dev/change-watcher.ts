import { basename, extname, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';

/** Files whose change restarts the server: sources and the JSON they may import. */
const WATCHED_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.cjs', '.mjs', '.json']);
/** Directories never worth a restart. */
const IGNORED_DIRECTORIES = new Set(['node_modules', '.git']);

export interface ChangeWatcherOptions {
  /** Directories, watched recursively. */
  directories: readonly string[];
  /** More directories to leave out (the build's outDir). */
  ignoreDirectories?: readonly string[];
  /**
   * How long the watcher waits after the last change before reporting the batch, in ms; a
   * burst of saves (an editor's "save all", a formatter) gives one report. Default 150.
   */
  debounceMs?: number;
  /** Called once per burst with the files that changed, in the order they first changed. */
  onChange: (files: string[]) => void;
  /** A watcher error (a directory that went away, too many watches). */
  onError?: (error: Error) => void;
}

export const DEFAULT_DEBOUNCE_MS = 150;

/**
 * Watches directories with chokidar and reports changed source files in debounced batches.
 *
 * Directories rather than files, and chokidar's `atomic` handling, because editors save by
 * replacing the file: vim (writebackup), JetBrains "safe write" and `sed -i` write a new file
 * and rename it over the old one. A watch on the old file (what `node --watch` keeps) follows
 * the replaced inode and hears nothing after the first such save; a directory watch sees the
 * new entry, and `atomic` turns the unlink + add pair into one change. The temporary files of
 * those saves (`main.ts~`, `4913`, `sedAbc123`, `main.ts___jb_tmp___`) have no source
 * extension, so they are never reported.
 */
export class ChangeWatcher {
  private readonly watcher: FSWatcher;
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly debounceMs: number;
  private readonly ready: Promise<void>;

  constructor(private readonly options: ChangeWatcherOptions) {
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    if (!Number.isInteger(this.debounceMs) || this.debounceMs < 0) {
      throw new RangeError(`debounceMs must be a non-negative integer, got ${String(options.debounceMs)}`);
    }
    const ignoredRoots = (options.ignoreDirectories ?? []).map((dir) =>
      dir.endsWith(sep) ? dir : dir + sep,
    );
    this.watcher = watch([...options.directories], {
      ignoreInitial: true,
      atomic: true,
      ignored: (path, stats) => {
        if (path.split(sep).some((part) => IGNORED_DIRECTORIES.has(part))) return true;
        if (ignoredRoots.some((root) => path === root.slice(0, -1) || path.startsWith(root))) return true;
        // Directories are walked; files count only with a source extension.
        return stats?.isFile() === true && !isSourceFile(path);
      },
    });
    for (const event of ['add', 'change', 'unlink'] as const) {
      this.watcher.on(event, (path: string) => {
        if (isSourceFile(path)) this.queue(path);
      });
    }
    this.watcher.on('error', (error) => this.options.onError?.(error as Error));
    this.ready = new Promise((done) => this.watcher.once('ready', () => done()));
  }

  /** Resolves once the initial scan is done: changes from then on are reported. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
    await this.watcher.close();
  }

  private queue(path: string): void {
    this.pending.add(path);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const files = [...this.pending];
      this.pending.clear();
      this.options.onChange(files);
    }, this.debounceMs);
  }
}

function isSourceFile(path: string): boolean {
  const name = basename(path);
  return !name.startsWith('.') && WATCHED_EXTENSIONS.has(extname(name));
}
