// A FrameChannel on the stdio of a fresh fixture server process: one line per frame.
import { type ChildServer, startFixture } from './child-server';
import type { FrameChannel } from './stream-lane';

const NEWLINE = 0x0a;

/** Opens stdio channels; `current` is the process behind the latest one. */
export class StdioChannels {
  current?: ChildServer;

  constructor(private readonly env: Record<string, string> = {}) {}

  open = async (onText: (text: string) => void): Promise<FrameChannel> => {
    const { server } = await startFixture({ transport: 'stdio', env: this.env });
    this.current = server;
    const { child } = server;
    let partial: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, start)) {
        partial.push(chunk.subarray(start, at));
        const line = Buffer.concat(partial).toString('utf8');
        partial = [];
        start = at + 1;
        if (line.length > 0) onText(line);
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
    });
    child.stdin.on('error', () => {}); // EPIPE after a crash is reported by the exit
    const closed = server.exited.then((exit) => ({
      detail: `the server process exited ${JSON.stringify(exit)}; stderr tail:\n${server.stderrTail.slice(-2000)}`,
    }));
    return {
      send(frame: Buffer) {
        // A newline inside the frame would make two messages of it: keep one line per input.
        const line = Buffer.from(frame);
        for (let i = line.indexOf(NEWLINE); i >= 0; i = line.indexOf(NEWLINE, i + 1)) line[i] = 0x20;
        if (!child.stdin.destroyed) child.stdin.write(Buffer.concat([line, Buffer.from('\n')]));
      },
      closed,
      close: async () => {
        await server.stop();
      },
    };
  };

  rss = (): number => this.current?.rss() ?? 0;
}
