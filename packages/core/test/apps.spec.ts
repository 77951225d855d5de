import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Ctx,
  type GantryApplication,
  GantryFactory,
  Injectable,
  type InjectOptions,
  type McpContext,
  Module,
  supportsUi,
  Tool,
  UI_EXTENSION_ID,
  UI_MIME_TYPE,
  UiResource,
  uiCapability,
} from '@gantry/core';
import type { ClientCapabilities } from '@gantry/protocol';
import { IsInt, IsString } from 'class-validator';

class Board {
  @IsString()
  title!: string;

  @IsInt()
  cards!: number;
}

const PAGE = '<!doctype html><html><body><div id="board"></div></body></html>';

@Injectable()
@UiResource({
  uri: 'ui://notes/board',
  name: 'board',
  description: 'The notes board',
  html: PAGE,
  csp: {
    connectDomains: ['https://api.example.com', 'wss://live.example.com'],
    resourceDomains: ['https://*.cdn.example.com'],
  },
  permissions: { clipboardWrite: true, camera: false },
  prefersBorder: false,
  domain: 'notes.example-content.com',
})
class NotesApp {
  @Tool({
    description: 'Shows the board',
    output: Board,
    ui: {
      resource: 'ui://notes/board',
      fallback: (board) => `Board "${board.title}" with ${board.cards} cards`,
    },
  })
  showBoard(): Board {
    return { title: 'Ideas', cards: 3 };
  }

  @Tool({
    description: 'Moves a card (the board calls it)',
    ui: { resource: 'ui://notes/board', visibility: ['app'] },
  })
  moveCard() {
    return 'moved';
  }

  @Tool({ description: 'Says what this client can show' })
  canShow(@Ctx() ctx: McpContext) {
    return { supports: supportsUi(ctx), capability: uiCapability(ctx) ?? null };
  }

  @UiResource({ uri: 'ui://notes/live', prefersBorder: true })
  live() {
    return `<!doctype html><p>${new Date(0).toISOString()}</p>`;
  }
}

@Module({ providers: [NotesApp] })
class AppModule {}

const UI_CAPS: ClientCapabilities = { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [UI_MIME_TYPE] } } };
const ERAS: [string, (caps?: ClientCapabilities) => InjectOptions][] = [
  ['session era', (caps) => ({ initialize: caps ? { capabilities: caps } : true })],
  ['stateless era', (caps) => ({ stateless: caps ? { clientCapabilities: caps } : true })],
];

let app: GantryApplication;
beforeAll(async () => {
  app = await GantryFactory.create(AppModule, { name: 'apps', version: '1.0.0', logger: false });
});
afterAll(() => app.close());

const call = (name: string, options: InjectOptions) =>
  app.inject({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }, options);

describe.each(ERAS)('MCP Apps in the %s', (_era, options) => {
  it('advertises io.modelcontextprotocol/ui with {} (initialize / server/discover)', async () => {
    const [answer] =
      _era === 'session era'
        ? await app.inject({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'c', version: '1' },
            },
          })
        : await app.inject(
            { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} },
            { stateless: true },
          );
    expect(answer.result.capabilities.extensions).toEqual({ [UI_EXTENSION_ID]: {} });
  });

  it('lists the view tool with _meta.ui and the deprecated flat ui/resourceUri; app-only tools stay listed', async () => {
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      options(UI_CAPS),
    );
    const byName = Object.fromEntries(answer.result.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.show_board._meta).toEqual({
      ui: { resourceUri: 'ui://notes/board' },
      'ui/resourceUri': 'ui://notes/board',
    });
    expect(byName.move_card._meta).toEqual({
      ui: { resourceUri: 'ui://notes/board', visibility: ['app'] },
      'ui/resourceUri': 'ui://notes/board',
    });
    expect(byName.can_show._meta).toBeUndefined();
  });

  it('reads the view as text/html;profile=mcp-app with only the given _meta.ui', async () => {
    const [board, live] = await app.inject(
      [
        { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'ui://notes/board' } },
        { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'ui://notes/live' } },
      ],
      options(UI_CAPS),
    );
    expect(board.result.contents).toEqual([
      {
        uri: 'ui://notes/board',
        mimeType: 'text/html;profile=mcp-app',
        text: PAGE,
        _meta: {
          ui: {
            csp: {
              connectDomains: ['https://api.example.com', 'wss://live.example.com'],
              resourceDomains: ['https://*.cdn.example.com'],
            },
            permissions: { clipboardWrite: {} },
            prefersBorder: false,
            domain: 'notes.example-content.com',
          },
        },
      },
    ]);
    expect(live.result.contents).toEqual([
      {
        uri: 'ui://notes/live',
        mimeType: 'text/html;profile=mcp-app',
        text: '<!doctype html><p>1970-01-01T00:00:00.000Z</p>',
        _meta: { ui: { prefersBorder: true } },
      },
    ]);
  });

  it('lists the views with their MIME type and _meta.ui', async () => {
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'resources/list', params: {} },
      options(),
    );
    const board = answer.result.resources.find((r: { uri: string }) => r.uri === 'ui://notes/board');
    expect(board).toMatchObject({ name: 'board', mimeType: UI_MIME_TYPE, description: 'The notes board' });
    expect(board._meta.ui.prefersBorder).toBe(false);
  });

  it('a client that shows views gets structuredContent and its JSON as content', async () => {
    const [answer] = await call('show_board', options(UI_CAPS));
    expect(answer.result.structuredContent).toEqual({ title: 'Ideas', cards: 3 });
    expect(answer.result.content).toEqual([{ type: 'text', text: '{"title":"Ideas","cards":3}' }]);
  });

  it.each([
    ['no extensions', undefined],
    ['the extension without mimeTypes', { extensions: { [UI_EXTENSION_ID]: {} } }],
    [
      'the extension with other mimeTypes',
      { extensions: { [UI_EXTENSION_ID]: { mimeTypes: ['text/uri-list'] } } },
    ],
  ])('a client with %s gets the fallback text, and the same structuredContent', async (_what, caps) => {
    const [answer] = await call('show_board', options(caps));
    expect(answer.result.content).toEqual([{ type: 'text', text: 'Board "Ideas" with 3 cards' }]);
    expect(answer.result.structuredContent).toEqual({ title: 'Ideas', cards: 3 });
  });

  it('handlers branch with supportsUi(ctx) and uiCapability(ctx), per request', async () => {
    const [withUi] = await call('can_show', options(UI_CAPS));
    expect(JSON.parse(withUi.result.content[0].text)).toEqual({
      supports: true,
      capability: { mimeTypes: [UI_MIME_TYPE] },
    });
    const [plain] = await call('can_show', options());
    expect(JSON.parse(plain.result.content[0].text)).toEqual({ supports: false, capability: null });
  });
});

describe('views from files and build directories', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-apps-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const build = join(dir, 'dist');
  mkdirSync(join(build, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'view.html'), '<!DOCTYPE html>\n<html><body>from a file</body></html>');
  writeFileSync(
    join(build, 'index.html'),
    [
      '<!doctype html><html><head>',
      '<script type="module" crossorigin src="/assets/index.js"></script>',
      '<link rel="modulepreload" href="./assets/chunk.js">',
      '<link rel="stylesheet" crossorigin href="./assets/index.css">',
      '<script src="https://cdn.example.com/lib.js"></script>',
      '</head><body></body></html>',
    ].join('\n'),
  );
  writeFileSync(join(build, 'assets', 'index.js'), 'document.body.append("</script>");');
  writeFileSync(join(build, 'assets', 'chunk.js'), '');
  writeFileSync(join(build, 'assets', 'index.css'), 'body { color: red }');

  const boot = async (options: Parameters<typeof UiResource>[0]) => {
    @Injectable()
    @UiResource(options)
    class Views {}
    @Module({ providers: [Views] })
    class ViewsModule {}
    return GantryFactory.create(ViewsModule, { name: 'v', version: '1', logger: false });
  };
  const read = async (served: GantryApplication, uri: string) =>
    (
      await served.inject(
        { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } },
        { stateless: true },
      )
    )[0];

  it('file: the .html file, read at bootstrap', async () => {
    const served = await boot({ uri: 'ui://v/file', file: join(dir, 'view.html') });
    writeFileSync(join(dir, 'view.html'), '<!doctype html><p>changed later</p>');
    const answer = await read(served, 'ui://v/file');
    expect(answer.result.contents[0].text).toBe('<!DOCTYPE html>\n<html><body>from a file</body></html>');
    expect(answer.result.contents[0].mimeType).toBe(UI_MIME_TYPE);
    expect(answer.result.contents[0]._meta).toBeUndefined();
    await served.close();
  });

  it('directory: index.html with its local script and stylesheet inlined, remote ones kept', async () => {
    const served = await boot({ uri: 'ui://v/dir', directory: build });
    const html: string = (await read(served, 'ui://v/dir')).result.contents[0].text;
    expect(html).toContain('<script type="module">document.body.append("<\\/script>");</script>');
    expect(html).toContain('<style>body { color: red }</style>');
    expect(html).not.toContain('modulepreload');
    expect(html).not.toContain('/assets/');
    expect(html).toContain('<script src="https://cdn.example.com/lib.js"></script>');
    await served.close();
  });

  it('a missing file is named at bootstrap', async () => {
    await expect(boot({ uri: 'ui://v/missing', file: join(dir, 'nope.html') })).rejects.toThrow(
      `@UiResource 'file': the file ${join(dir, 'nope.html')} cannot be read (ENOENT)`,
    );
  });

  it('a script outside the build directory is refused at bootstrap', async () => {
    const outside = join(dir, 'escape');
    mkdirSync(outside);
    writeFileSync(join(outside, 'index.html'), '<!doctype html><script src="../view.html"></script>');
    await expect(boot({ uri: 'ui://v/escape', directory: outside })).rejects.toThrow(
      '<script src> "../view.html" points outside the directory',
    );
  });

  it('a local script that does not exist is named', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'index.html'), '<!doctype html><script src="app.js"></script>');
    await expect(boot({ uri: 'ui://v/broken', directory: broken })).rejects.toThrow(
      `<script src> "app.js" names ${join(broken, 'app.js')}, which does not exist`,
    );
  });

  it('html that is not a document is refused at bootstrap', async () => {
    await expect(boot({ uri: 'ui://v/frag', html: '<p>just a fragment</p>' })).rejects.toThrow(
      "the 'html' of @UiResource is not an HTML document",
    );
  });
});
