import { GantryError, type InboundRequest, LocalErrorCode } from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import type { CompiledHandler } from './compiled-handler';
import { paginate } from './pagination';

interface Entry<D> {
  readonly definition: D;
  enabled: boolean;
}

/** Called after any change to what a collection lists. */
export type CollectionListener = () => void;

/**
 * One kind of handler (tools, resources, templates, prompts) keyed by name or URI. Lookups
 * are one `Map` access; the listed descriptors are rebuilt only after a change, and filtered
 * per caller only when some item has guards.
 */
export class HandlerCollection<
  D extends { readonly handler: CompiledHandler<any>; readonly descriptor: object },
> {
  private readonly entries = new Map<string, Entry<D>>();
  private listed?: readonly D[];
  private readonly listeners = new Set<CollectionListener>();

  constructor(
    /** `tool`, `resource`, `resource template` or `prompt`, for messages. */
    readonly noun: string,
    private readonly keyOf: (definition: D) => string,
    private readonly order?: (a: D, b: D) => number,
  ) {}

  /** The enabled item under `key`. Disabled and unknown items are both undefined. */
  get(key: string): D | undefined {
    const entry = this.entries.get(key);
    return entry?.enabled ? entry.definition : undefined;
  }

  /** True when an item is registered under `key`, enabled or not. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Number of registered items, enabled or not. */
  get size(): number {
    return this.entries.size;
  }

  /** The enabled items, in registration order (or the collection's order). */
  definitions(): readonly D[] {
    if (!this.listed) {
      const enabled: D[] = [];
      for (const entry of this.entries.values()) if (entry.enabled) enabled.push(entry.definition);
      if (this.order) enabled.sort(this.order);
      this.listed = Object.freeze(enabled);
    }
    return this.listed;
  }

  /** The enabled items this caller may see: guards run in the list phase when any item has some. */
  visibleTo(inbound: InboundRequest, session: ContextSession): readonly D[] | Promise<readonly D[]> {
    const all = this.definitions();
    if (!all.some((d) => d.handler.guarded)) return all;
    return Promise.all(all.map((d) => d.handler.visible(inbound, session))).then((shown) =>
      all.filter((_, i) => shown[i]),
    );
  }

  /** One page of the descriptors this caller may see. */
  page(
    inbound: InboundRequest,
    session: ContextSession,
    cursor: unknown,
    pageSize: number,
  ): { items: object[]; nextCursor?: string } | Promise<{ items: object[]; nextCursor?: string }> {
    const visible = this.visibleTo(inbound, session);
    const project = (list: readonly D[]) =>
      paginate(
        list.map((d) => d.descriptor),
        cursor,
        pageSize,
      );
    return Array.isArray(visible)
      ? project(visible as readonly D[])
      : (visible as Promise<readonly D[]>).then(project);
  }

  /** Registers an item while serving; its key must be free. */
  add(definition: D): void {
    const key = this.keyOf(definition);
    if (this.entries.has(key)) {
      throw new GantryError(LocalErrorCode.DuplicateName, `A ${this.noun} '${key}' is already registered`);
    }
    this.entries.set(key, { definition, enabled: true });
    this.changed();
  }

  /** Unregisters an item; returns false when there was none. */
  remove(key: string): boolean {
    const removed = this.entries.delete(key);
    if (removed) this.changed();
    return removed;
  }

  /** Lists and serves the item again. */
  enable(key: string): void {
    this.setEnabled(key, true);
  }

  /** Hides the item from lists and answers it as unknown. */
  disable(key: string): void {
    this.setEnabled(key, false);
  }

  /** True when the item is registered and enabled. */
  isEnabled(key: string): boolean {
    return this.entries.get(key)?.enabled ?? false;
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: CollectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setEnabled(key: string, enabled: boolean): void {
    const entry = this.entries.get(key);
    if (!entry)
      throw new GantryError(LocalErrorCode.UnknownProvider, `No ${this.noun} '${key}' is registered`);
    if (entry.enabled === enabled) return;
    entry.enabled = enabled;
    this.changed();
  }

  private changed(): void {
    this.listed = undefined;
    for (const listener of this.listeners) listener();
  }
}
