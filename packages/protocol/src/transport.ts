import type { McpError } from './errors';
import type { JSONRPCMessage, RequestId } from './jsonrpc';

/** A message or, where the transport allows it (2025-03-26), a batch of messages. */
export type WireMessage = JSONRPCMessage | JSONRPCMessage[];

/** Where a transport delivers what it receives. The Peer is the usual sink. */
export interface TransportSink {
  /** One decoded JSON value: a message, a batch array, or something invalid for the Peer to answer. */
  message(value: unknown): void;
  /** A frame that could not be decoded (bad JSON, bad UTF-8, too large); the Peer answers it. */
  invalid(error: McpError): void;
  /** The transport closed; no more messages will arrive. */
  closed(error?: Error): void;
}

export interface SendOptions {
  /** The inbound request this message belongs to (progress, logs, the response itself). */
  relatedRequestId?: RequestId;
}

/**
 * A dumb pipe: it frames and unframes messages, nothing more. Sessions, streams and
 * resumability belong to the transport packages, never to the Peer.
 */
export interface Transport {
  /** Starts reading; every decoded message goes to the sink. */
  start(sink: TransportSink): void | Promise<void>;
  /** Sends one message (or a batch). May return a promise that settles once written. */
  send(message: WireMessage, options?: SendOptions): void | Promise<void>;
  /** Closes the pipe; the sink's `closed` is called once. */
  close(): Promise<void>;
  /**
   * Stops reading (flow control): the Peer calls it when its in-flight limit is reached, so the
   * other side's writes push back instead of piling up here. Messages already read may still
   * be delivered. Optional, with {@link resumeReading}; without them the Peer refuses excess requests.
   */
  pauseReading?(): void;
  /** Reads again after {@link pauseReading}. */
  resumeReading?(): void;
}
