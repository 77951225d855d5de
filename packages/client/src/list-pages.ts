// The four paginated lists (MCP 2025-11-25, Server / Utilities §"Pagination"), driven by one
// table: which method each kind calls and which field of the page holds its items.
import {
  GantryError,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  LocalErrorCode,
  Method,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Result,
  type Tool,
} from '@gantry/protocol';
import { preview, protocolViolation } from './client-support';
import { type ParamHeader, scanParamHeaders } from './param-headers';

/** A page and the items on it, per kind of list. */
interface Lists {
  tools: { page: ListToolsResult; item: Tool };
  prompts: { page: ListPromptsResult; item: Prompt };
  resources: { page: ListResourcesResult; item: Resource };
  resourceTemplates: { page: ListResourceTemplatesResult; item: ResourceTemplate };
}

/** The kinds of list the Client pages through. */
export type ListKind = keyof Lists;
export type ListPage<K extends ListKind> = Lists[K]['page'];
export type ListItem<K extends ListKind> = Lists[K]['item'];

/** The request method of each kind; its page holds the items in the field named like the kind. */
export const LIST_METHODS: { readonly [K in ListKind]: string } = {
  tools: Method.ToolsList,
  prompts: Method.PromptsList,
  resources: Method.ResourcesList,
  resourceTemplates: Method.ResourcesTemplatesList,
};

/** The items of a page, which must be an array. */
export function itemsOf<K extends ListKind>(kind: K, page: ListPage<K>): ListItem<K>[] {
  const items = (page as unknown as Record<string, unknown>)[kind];
  if (!Array.isArray(items)) {
    throw protocolViolation(`${LIST_METHODS[kind]} answered without a "${kind}" array: ${preview(page)}`);
  }
  return items as ListItem<K>[];
}

/** Follows `nextCursor` through every page, refusing a repeated cursor. */
export async function collectPages<K extends ListKind>(
  kind: K,
  page: (cursor: string | undefined) => Promise<ListPage<K>>,
): Promise<ListItem<K>[]> {
  const all: ListItem<K>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const current = await page(cursor);
    all.push(...itemsOf(kind, current));
    cursor = current.nextCursor ?? undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor)) {
        throw protocolViolation(
          `${LIST_METHODS[kind]} repeated the cursor ${JSON.stringify(cursor)}; stopped after ${seen.size + 1} pages to avoid an endless loop`,
        );
      }
      seen.add(cursor);
    }
  } while (cursor !== undefined);
  return all;
}

/** Where {@link fetchPage} gets a page from. */
export interface PageSource {
  request<T extends Result>(method: string, params: { [key: string]: unknown } | undefined): Promise<T>;
  /** Stateless-era HTTP: `tools/list` refreshes these `x-mcp-header` annotations, by tool name. */
  readonly toolHeaders?: Map<string, readonly ParamHeader[]>;
  readonly onError?: (error: Error) => void;
}

/** One page of a list; with `source.toolHeaders`, tools with invalid annotations are left out. */
export async function fetchPage<K extends ListKind>(
  kind: K,
  cursor: string | undefined,
  source: PageSource,
): Promise<ListPage<K>> {
  const params = cursor === undefined ? undefined : { cursor };
  const result = await source.request<ListPage<K>>(LIST_METHODS[kind], params);
  if (kind !== 'tools' || !source.toolHeaders) return result;
  const tools = keepValidTools(itemsOf(kind, result) as Tool[], source.toolHeaders, source.onError);
  return { ...result, tools };
}

/**
 * Drops tools with invalid `x-mcp-header` annotations (reported to `onError`) and remembers
 * the others' annotations in `headers` (MCP 2026-07-28, Basic / Transports §"Streamable
 * HTTP", custom headers from tool parameters: clients MUST drop such tools).
 */
export function keepValidTools(
  tools: Tool[],
  headers: Map<string, readonly ParamHeader[]>,
  onError: ((error: Error) => void) | undefined,
): Tool[] {
  const kept: Tool[] = [];
  for (const tool of tools) {
    const scan = scanParamHeaders(tool?.inputSchema);
    if (!scan.ok) {
      headers.delete(tool.name);
      onError?.(
        new GantryError(
          LocalErrorCode.ProtocolViolation,
          `Dropped tool "${tool.name}" from tools/list: its inputSchema has an invalid x-mcp-header annotation (${scan.reason})`,
        ),
      );
      continue;
    }
    if (scan.headers.length > 0) headers.set(tool.name, scan.headers);
    else headers.delete(tool.name);
    kept.push(tool);
  }
  return kept;
}
