import type { ClusterEventStore, StreamFollower, StreamSink } from '@gantry/core';
import type { JSONRPCMessage, RequestId } from '@gantry/protocol';
import type { ChannelHub } from './channel-hub';
import type { RedisEventStoreOptions } from './options';
import { RedisEventStore } from './redis-event-store';
import { RedisStreamFollower } from './stream-follower';

/** What the cluster gives its event store besides the plain store's options. */
export interface ClusterEventStoreContext {
  readonly nodeId: string;
  /** Prefix of the tail channels: `<prefix>tail:{<streamId>}`. */
  readonly channelPrefix: string;
  readonly hub: ChannelHub;
  nodeKey(nodeId: string): string;
  readonly heartbeatMs: number;
}

/** `<streamId>.<seq>` → its parts; undefined for a malformed id. */
function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const dot = eventId.lastIndexOf('.');
  const seqText = eventId.slice(dot + 1);
  if (dot <= 0 || !/^\d{1,15}$/.test(seqText)) return undefined;
  return { streamId: eventId.slice(0, dot), seq: Number(seqText) };
}

/**
 * The event store of a {@link RedisCluster}: a {@link RedisEventStore} whose every append is also
 * published on the stream's tail channel (from the append script: ordered, one round trip), so a
 * node can follow a stream that another node writes, and which can mark a stream ended. A
 * priming event that names requests records the writing node, so a follower notices when that
 * node dies before answering them.
 */
export class RedisClusterEventStore extends RedisEventStore implements ClusterEventStore {
  private readonly followers = new Set<RedisStreamFollower>();

  constructor(
    options: RedisEventStoreOptions,
    private readonly cluster: ClusterEventStoreContext,
  ) {
    super(options);
  }

  /**
   * Stores an event (null: a priming event) and returns its id `<streamId>.<seq>`. With
   * `meta.requestIds`, the stream's meta also records this node as its writer and those ids.
   */
  override async storeEvent(
    streamId: string,
    message: JSONRPCMessage | null,
    meta?: { readonly requestIds?: readonly RequestId[] },
  ): Promise<string> {
    const data = message === null ? '' : JSON.stringify(message);
    const writer = meta?.requestIds ? this.cluster.nodeId : '';
    const requests = meta?.requestIds ? JSON.stringify(meta.requestIds) : '';
    return `${streamId}.${await this.appendEntry(streamId, 'm', data, writer, requests)}`;
  }

  /** Appends the end marker: followers end once they delivered everything before it. */
  async endStream(streamId: string): Promise<void> {
    await this.appendEntry(streamId, 'e', '', '', '');
  }

  streamOf(eventId: string): string | undefined {
    return parseEventId(eventId)?.streamId;
  }

  async follow(
    after: string | { readonly streamId: string },
    sink: StreamSink,
  ): Promise<StreamFollower | undefined> {
    let streamId: string;
    let afterSeq: number | undefined;
    if (typeof after === 'string') {
      const parsed = parseEventId(after);
      if (!parsed) return undefined;
      ({ streamId, seq: afterSeq } = parsed);
    } else {
      streamId = after.streamId;
    }
    const { redis, batchSize, onError } = this.options;
    const follower = await RedisStreamFollower.start(
      streamId,
      afterSeq,
      {
        redis,
        hub: this.cluster.hub,
        streamKey: this.streamKey(streamId),
        metaKey: this.metaKey(streamId),
        channel: this.channelOf(streamId),
        nodeKey: (nodeId) => this.cluster.nodeKey(nodeId),
        heartbeatMs: this.cluster.heartbeatMs,
        batchSize,
        onError,
        stopped: (stopped) => this.followers.delete(stopped),
      },
      sink,
    );
    if (follower && !follower.isStopped) this.followers.add(follower);
    return follower;
  }

  /** Has every follower read what was stored after its position (notices may have been missed). */
  resumeFollowers(): void {
    for (const follower of this.followers) follower.resume();
  }

  /** Stops every follower (the link is closing). */
  stopFollowers(): void {
    for (const follower of [...this.followers]) follower.stop();
  }

  /** The channel a stream's entries are published on (its hash tag as in its keys). */
  channelOf(streamId: string): string {
    return `${this.cluster.channelPrefix}tail:{${streamId}}`;
  }

  private appendEntry(streamId: string, field: 'm' | 'e', data: string, writer: string, requests: string) {
    const { maxEvents, maxBytes, ttlMs } = this.options;
    return this.append(
      this.streamKey(streamId),
      this.metaKey(streamId),
      data,
      maxEvents,
      maxBytes,
      ttlMs,
      field,
      this.channelOf(streamId),
      writer,
      requests,
    );
  }
}
