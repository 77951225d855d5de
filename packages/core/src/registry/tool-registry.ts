import { GantryError, type ListToolsResult, LocalErrorCode, type Tool } from '@gantry/protocol';
import { paginate } from './pagination';
import type { ToolDefinition } from './tool-definition';

interface ToolEntry {
  readonly definition: ToolDefinition;
  enabled: boolean;
}

/** Called after any change to the set of listed tools. */
export type RegistryListener = () => void;

/**
 * The tools an application serves. Lookups are one `Map` access; the list served by
 * `tools/list` is rebuilt only after a change.
 */
export class ToolRegistry {
  private readonly entries = new Map<string, ToolEntry>();
  private listed?: readonly Tool[];
  private readonly listeners = new Set<RegistryListener>();

  constructor(definitions: readonly ToolDefinition[] = []) {
    for (const definition of definitions) this.entries.set(definition.name, { definition, enabled: true });
  }

  /** The enabled tool called `name`. Disabled and unknown tools are both undefined. */
  get(name: string): ToolDefinition | undefined {
    const entry = this.entries.get(name);
    return entry?.enabled ? entry.definition : undefined;
  }

  /** True when a tool of that name is registered, enabled or not. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The descriptors of the enabled tools, in registration order. */
  list(): readonly Tool[] {
    if (!this.listed) {
      const tools: Tool[] = [];
      for (const entry of this.entries.values()) if (entry.enabled) tools.push(entry.definition.descriptor);
      this.listed = Object.freeze(tools);
    }
    return this.listed;
  }

  /** One page of `tools/list`. */
  page(cursor: unknown, pageSize: number): ListToolsResult {
    const { items, nextCursor } = paginate(this.list(), cursor, pageSize);
    return nextCursor === undefined ? { tools: items } : { tools: items, nextCursor };
  }

  /** Registers a tool while serving; its name must be free. */
  add(definition: ToolDefinition): void {
    if (this.entries.has(definition.name)) {
      throw new GantryError(
        LocalErrorCode.DuplicateName,
        `A tool named '${definition.name}' is already registered`,
      );
    }
    this.entries.set(definition.name, { definition, enabled: true });
    this.changed();
  }

  /** Unregisters a tool; returns false when there was none. */
  remove(name: string): boolean {
    const removed = this.entries.delete(name);
    if (removed) this.changed();
    return removed;
  }

  /** Lists and serves the tool again. */
  enable(name: string): void {
    this.setEnabled(name, true);
  }

  /** Hides the tool from `tools/list` and makes `tools/call` answer it as unknown. */
  disable(name: string): void {
    this.setEnabled(name, false);
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setEnabled(name: string, enabled: boolean): void {
    const entry = this.entries.get(name);
    if (!entry)
      throw new GantryError(LocalErrorCode.UnknownProvider, `No tool named '${name}' is registered`);
    if (entry.enabled === enabled) return;
    entry.enabled = enabled;
    this.changed();
  }

  private changed(): void {
    this.listed = undefined;
    for (const listener of this.listeners) listener();
  }
}
