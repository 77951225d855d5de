import type { Transport, TransportSink, WireMessage } from '@gantry/protocol';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Serves a Gantry app on one end of the SDK's own in-memory pair, so the SDK client can talk to it without a process. */
export class SdkTransportBridge implements Transport {
  constructor(private readonly sdk: SdkTransport) {}

  async start(sink: TransportSink): Promise<void> {
    this.sdk.onmessage = (message) => sink.message(message);
    this.sdk.onclose = () => sink.closed();
    this.sdk.onerror = (error) => sink.closed(error);
    await this.sdk.start();
  }

  send(message: WireMessage): Promise<void> {
    return this.sdk.send(message as never);
  }

  close(): Promise<void> {
    return this.sdk.close();
  }
}
