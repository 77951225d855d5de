// A FrameChannel on a WebSocket to the fixture server: one JSON-RPC message per text frame.
import WebSocket from 'ws';
import type { FrameChannel } from './stream-lane';

export function openWebSocket(url: string, onText: (text: string) => void): Promise<FrameChannel> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, ['mcp'], { maxPayload: 64 * 1024 * 1024, perMessageDeflate: false });
    const closed = new Promise<{ code?: number; detail: string }>((resolveClosed) =>
      socket.once('close', (code, reason) =>
        resolveClosed({ code, detail: `the socket closed with ${code} ${reason.toString()}` }),
      ),
    );
    socket.on('message', (data, isBinary) => {
      if (isBinary) onText('<a binary frame from the server>');
      else onText(data.toString());
    });
    socket.once('error', (error) => {
      if (socket.readyState === WebSocket.CONNECTING) reject(error);
    });
    socket.once('open', () =>
      resolve({
        send(frame, options) {
          if (socket.readyState === WebSocket.OPEN) socket.send(frame, { binary: options?.binary === true });
        },
        closed,
        async close() {
          if (socket.readyState !== WebSocket.CLOSED) {
            socket.terminate();
            await closed;
          }
        },
      }),
    );
  });
}
