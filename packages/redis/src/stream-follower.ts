import type { StreamFollower, StreamSink } from '@gantry/core';
import type { JSONRPCMessage, RequestId } from '@gantry/protocol';
import type { ChannelHub } from './channel-hub';
import type { RedisConnection } from './options';
import { type Entry, messageOf, seqOf } from './redis-event-store';

/** What a follower needs from its store. */
export interface FollowContext {
  readonly redis: RedisConnection;
  readonly hub: ChannelHub;
  readonly streamKey: string;
  readonly metaKey: string;
  /** The channel the append script publishes the stream's entries on. */
  readonly channel: string;
  /** The liveness key of a node. */
  nodeKey(nodeId: string): string;
  readonly heartbeatMs: number;
  readonly batchSize: number;
  readonly onError: (error: Error) => void;
  /** Told once when the follower stops, for whatever reason. */
  readonly stopped: (follower: RedisStreamFollower) => void;
}

/** A tail notice: `<seq> <field><message>` (field `m`: an event, '' for a priming one; `e`: the end). */
const NOTICE = /^(\d{1,15}) ([me])([\s\S]*)$/;

/**
 * Follows one stream: the entries already stored after a point, then each new one as its writer
 * publishes it, each delivered once and in sequence order. Everything that touches the position
 * runs in one promise chain, so replayed entries, tail notices and gap fills never interleave.
 */
export class RedisStreamFollower implements StreamFollower {
  /** Sequence number of the last entry handled (delivered or skipped). */
  private last = 0;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private writer: string | undefined;
  private requestIds: RequestId[] = [];
  /** The writer's liveness key was missing at the last check. */
  private writerMissing = false;
  private readonly onNotice = (text: string): void => {
    this.enqueue(() => this.notice(text));
  };

  private constructor(
    readonly streamId: string,
    private readonly context: FollowContext,
    private readonly sink: StreamSink,
  ) {}

  /**
   * Subscribes to the stream's channel first (so nothing published during the replay is
   * missed), then replays from `afterSeq` (undefined: from the stream's current end). Undefined
   * when `afterSeq` is not a position the stream still holds.
   */
  static async start(
    streamId: string,
    afterSeq: number | undefined,
    context: FollowContext,
    sink: StreamSink,
  ): Promise<RedisStreamFollower | undefined> {
    const follower = new RedisStreamFollower(streamId, context, sink);
    const begun = context.hub.add(context.channel, follower.onNotice).then(() => follower.begin(afterSeq));
    // Notices that arrive meanwhile queue up behind the replay.
    follower.chain = begun.then(
      () => undefined,
      () => undefined,
    );
    let known: boolean;
    try {
      known = await begun;
    } catch (error) {
      follower.stop();
      throw error;
    }
    if (!known) {
      follower.stop();
      return undefined;
    }
    return follower;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.context.hub.remove(this.context.channel, this.onNotice);
    this.context.stopped(this);
  }

  /** Reads whatever was stored after the last entry handled (after missed notices). */
  resume(): void {
    this.enqueue(() => this.catchUp());
  }

  /** True once it stopped (ended, lost, or `stop()`). */
  get isStopped(): boolean {
    return this.stopped;
  }

  private async begin(afterSeq: number | undefined): Promise<boolean> {
    const { redis, metaKey, streamKey } = this.context;
    const [seqText, writer, requests] = await redis.hmget(metaKey, 'seq', 'writer', 'requests');
    const last = seqText === null ? 0 : Number(seqText);
    if (afterSeq === undefined) {
      this.last = last;
    } else {
      if (seqText === null || afterSeq < 1 || afterSeq > last) return false;
      // Known only while it, or the entry right after it, is kept (as in replayEventsAfter).
      const [first] = (await redis.xrange(streamKey, `0-${afterSeq}`, '+', 'COUNT', 1)) as Entry[];
      if (first === undefined ? afterSeq !== last : seqOf(first[0]) > afterSeq + 1) return false;
      this.last = afterSeq;
    }
    this.learnWriter(writer, requests);
    await this.catchUp();
    if (this.stopped) return true;
    // A stream that exists without a writer never gets one (the priming event comes first).
    if (this.writer !== undefined || seqText === null) {
      if (this.writer !== undefined) await this.checkWriter();
      if (!this.stopped) {
        this.timer = setInterval(() => this.enqueue(() => this.checkWriter()), this.context.heartbeatMs);
        this.timer.unref();
      }
    }
    return true;
  }

  private enqueue(work: () => Promise<void>): void {
    if (this.stopped) return;
    this.chain = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        await work();
      } catch (error) {
        // While Redis is away every heartbeat would fail: the link reports the outage once
        // instead, and the next notice or heartbeat after it returns catches up.
        if (this.context.redis.status === 'ready') this.context.onError(error as Error);
      }
    });
  }

  /** Handles a tail notice: a duplicate is dropped, the next entry delivered, a gap filled. */
  private async notice(text: string): Promise<void> {
    const parsed = NOTICE.exec(text);
    if (!parsed) throw new Error(`@gantry/redis: a malformed notice on ${this.context.channel} was ignored`);
    const seq = Number(parsed[1]);
    if (seq <= this.last) return;
    if (seq === this.last + 1) this.deliver(seq, parsed[2] === 'e', parsed[3]);
    else await this.catchUp();
  }

  /** Delivers every stored entry after the last one handled, in pages. */
  private async catchUp(): Promise<void> {
    const { redis, streamKey, batchSize } = this.context;
    for (;;) {
      const page = (await redis.xrange(streamKey, `(0-${this.last}`, '+', 'COUNT', batchSize)) as Entry[];
      for (const [entryId, fields] of page) {
        if (this.stopped) return;
        const seq = seqOf(entryId);
        if (seq > this.last) this.deliver(seq, fields[0] === 'e', messageOf(fields));
      }
      if (page.length < batchSize || this.stopped) return;
    }
  }

  private deliver(seq: number, end: boolean, data: string): void {
    this.last = seq;
    if (end) {
      this.stop();
      this.sink.end();
    } else if (data !== '') {
      this.sink.event(`${this.streamId}.${seq}`, JSON.parse(data) as JSONRPCMessage);
    }
  }

  private learnWriter(writer: string | null, requests: string | null): void {
    if (writer === null) return;
    this.writer = writer;
    try {
      const ids: unknown = JSON.parse(requests ?? '[]');
      this.requestIds = Array.isArray(ids) ? (ids as RequestId[]) : [];
    } catch {
      this.requestIds = [];
    }
  }

  /**
   * Once per heartbeat: is the writer's node alive? When its liveness key is gone on two checks
   * in a row, whatever it stored is delivered first, then `lost`. While the writer is not known yet (a stream followed
   * before its priming event), looks for it instead.
   */
  private async checkWriter(): Promise<void> {
    const { redis, metaKey } = this.context;
    if (this.writer === undefined) {
      const [seqText, writer, requests] = await redis.hmget(metaKey, 'seq', 'writer', 'requests');
      this.learnWriter(writer, requests);
      if (this.writer === undefined) {
        if (seqText !== null) clearInterval(this.timer);
        return;
      }
    }
    if ((await redis.exists(this.context.nodeKey(this.writer))) === 1) {
      this.writerMissing = false;
      return;
    }
    // Missing twice, a heartbeat apart: right after Redis returns from an outage, a live
    // writer's key may be gone until its next heartbeat.
    if (!this.writerMissing) {
      this.writerMissing = true;
      return;
    }
    await this.catchUp();
    if (this.stopped) return;
    this.stop();
    this.sink.lost(
      this.requestIds,
      `the node serving this request stopped (node ${this.writer} missed its heartbeats)`,
    );
  }
}
