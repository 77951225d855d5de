import type { Client } from '@gantry/client';
import {
  GantryError,
  LocalErrorCode,
  Method,
  type PaginatedResult,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from '@gantry/protocol';
import type { Command } from 'commander';
import {
  addConnectionOptions,
  type ConnectionOptions,
  TARGET_ARGUMENT_HELP,
  withConnection,
} from '../connection';
import { describeSchemaArguments, formatJson, formatTable, type Io, outputWidth } from '../output';

interface ListOptions extends ConnectionOptions {
  tools?: boolean;
  resources?: boolean;
  prompts?: boolean;
  all?: boolean;
  json?: boolean;
}

/** What `gantry list` fetched, keyed as in the raw list results. */
interface Lists {
  tools?: Tool[];
  resources?: Resource[];
  resourceTemplates?: ResourceTemplate[];
  prompts?: Prompt[];
}

/** `gantry list <target>`: tools by default; resources, templates and prompts on request. */
export function registerListCommand(program: Command, io: Io): void {
  const command = program
    .command('list')
    .description('List what a server offers: its tools (the default), resources and templates, prompts')
    .argument('<target>', TARGET_ARGUMENT_HELP)
    .option('--tools', 'list tools (the default when nothing else is asked for)')
    .option('--resources', 'list resources and resource templates')
    .option('--prompts', 'list prompts')
    .option('--all', 'list tools, resources, resource templates and prompts')
    .option('--json', 'print the lists as JSON ({ "tools": […], … }, every page merged)');
  addConnectionOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  $ gantry list "node dist/main.js"
  $ gantry list http://127.0.0.1:3000/mcp --all
  $ gantry list "node dist/main.js" --json | jq -r '.tools[].name'`,
    )
    .action(async (target: string, options: ListOptions) => {
      const wanted = {
        tools: options.all || options.tools || !(options.resources || options.prompts),
        resources: options.all || options.resources,
        prompts: options.all || options.prompts,
      };
      await withConnection(target, options, io, async ({ client, signal }) => {
        const lists = await fetchLists(client, wanted, signal);
        io.stdout.write(options.json ? formatJson(lists) : formatLists(lists, client.serverCapabilities, io));
      });
    });
}

async function fetchLists(
  client: Client,
  wanted: { tools?: boolean; resources?: boolean; prompts?: boolean },
  signal: AbortSignal,
): Promise<Lists> {
  const offered = client.serverCapabilities ?? {};
  const lists: Lists = {};
  // A kind the server does not declare is listed as empty rather than asked for (−32601).
  if (wanted.tools) lists.tools = offered.tools ? await client.listTools({ signal }) : [];
  if (wanted.resources) {
    lists.resources = offered.resources
      ? await listAll<Resource>(client, Method.ResourcesList, 'resources', signal)
      : [];
    lists.resourceTemplates = offered.resources
      ? await listAll<ResourceTemplate>(client, Method.ResourcesTemplatesList, 'resourceTemplates', signal)
      : [];
  }
  if (wanted.prompts) {
    lists.prompts = offered.prompts
      ? await listAll<Prompt>(client, Method.PromptsList, 'prompts', signal)
      : [];
  }
  return lists;
}

/** Every item of a paginated list, following `nextCursor`; a repeated cursor is a protocol violation. */
export async function listAll<T>(
  client: Client,
  method: string,
  key: string,
  signal?: AbortSignal,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.request<PaginatedResult & { [key: string]: unknown }>(
      method,
      cursor === undefined ? undefined : { cursor },
      { signal },
    );
    const pageItems = page[key];
    if (!Array.isArray(pageItems)) {
      throw new GantryError(LocalErrorCode.ProtocolViolation, `${method} answered without a "${key}" array`);
    }
    items.push(...(pageItems as T[]));
    cursor = page.nextCursor ?? undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor)) {
        throw new GantryError(
          LocalErrorCode.ProtocolViolation,
          `${method} repeated the cursor ${JSON.stringify(cursor)}; stopped to avoid an endless loop`,
        );
      }
      seen.add(cursor);
    }
  } while (cursor !== undefined);
  return items;
}

function formatLists(lists: Lists, offered: ServerCapabilities | undefined, io: Io): string {
  const width = outputWidth(io);
  const sections: { title: string; kind: string; declared: boolean; table: string | undefined }[] = [];
  const add = (
    title: string,
    kind: string,
    declared: boolean,
    rows: string[][] | undefined,
    headers: string[],
  ) =>
    rows &&
    sections.push({
      title,
      kind,
      declared,
      table: rows.length ? formatTable(headers, rows, width) : undefined,
    });

  add(
    'Tools',
    'tools',
    !!offered?.tools,
    lists.tools?.map((t) => [
      t.name,
      describeSchemaArguments(t.inputSchema),
      t.description ?? t.title ?? t.annotations?.title ?? '',
    ]),
    ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
  );
  add(
    'Resources',
    'resources',
    !!offered?.resources,
    lists.resources?.map((r) => [r.uri, r.name, r.mimeType ?? '', describe(r)]),
    ['URI', 'NAME', 'MIME TYPE', 'DESCRIPTION'],
  );
  add(
    'Resource templates',
    'resource templates',
    !!offered?.resources,
    lists.resourceTemplates?.map((r) => [r.uriTemplate, r.name, r.mimeType ?? '', describe(r)]),
    ['URI TEMPLATE', 'NAME', 'MIME TYPE', 'DESCRIPTION'],
  );
  add(
    'Prompts',
    'prompts',
    !!offered?.prompts,
    lists.prompts?.map((p) => [
      p.name,
      (p.arguments ?? []).map((a) => (a.required ? a.name : `${a.name}?`)).join(', '),
      describe(p),
    ]),
    ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
  );

  const titled = sections.length > 1;
  return sections
    .map(({ title, kind, declared, table }) => {
      const body = table ?? (declared ? `(no ${kind})\n` : `(the server does not offer ${kind})\n`);
      return titled ? `${title}\n${body}` : body;
    })
    .join('\n');
}

/** Description, else title: what a person reads first. */
function describe(item: { description?: string; title?: string }): string {
  return item.description ?? item.title ?? '';
}
