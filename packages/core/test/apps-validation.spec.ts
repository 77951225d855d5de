import 'reflect-metadata';
import {
  Extension,
  GantryFactory,
  Injectable,
  Module,
  Resource,
  Tool,
  type ToolOptions,
  UI_EXTENSION_ID,
  UiResource,
  type UiResourceOptions,
} from '@gantry/core';
import { IsString } from 'class-validator';

class Out {
  @IsString()
  text!: string;
}

const PAGE = '<!doctype html><p>view</p>';

function decorateTool(options: ToolOptions): void {
  class Holder {
    run() {
      return { text: 'x' };
    }
  }
  const descriptor = Object.getOwnPropertyDescriptor(Holder.prototype, 'run') as PropertyDescriptor;
  Tool(options)(Holder.prototype, 'run', descriptor);
}

function decorateView(options: UiResourceOptions): void {
  UiResource(options)(class Views {});
}

describe('@Tool({ ui }) is checked when the method is decorated', () => {
  it.each<[string, unknown, string]>([
    [
      'a resource that is not ui://',
      { resource: 'https://example.com/board' },
      'ui.resource must be a ui:// URI',
    ],
    ['no resource', {}, 'ui.resource must be a ui:// URI'],
    [
      'an empty visibility',
      { resource: 'ui://a/b', visibility: [] },
      'ui.visibility must be a non-empty array',
    ],
    ['an unknown visibility', { resource: 'ui://a/b', visibility: ['user'] }, `ui.visibility has "user"`],
    ['a repeated visibility', { resource: 'ui://a/b', visibility: ['app', 'app'] }, 'lists a value twice'],
    ['an unknown option', { resource: 'ui://a/b', csp: {} }, "ui: unknown option 'csp'"],
    [
      'a fallback that is no function',
      { resource: 'ui://a/b', fallback: 'text' },
      'ui.fallback must be a function',
    ],
  ])('%s', (_what, ui, message) => {
    expect(() => decorateTool({ ui: ui as ToolOptions['ui'] })).toThrow(message);
  });

  it('a fallback without output', () => {
    expect(() => decorateTool({ ui: { resource: 'ui://a/b', fallback: () => 'x' } })).toThrow(
      'ui.fallback renders the structured output for plain hosts; declare it with @Tool({ output })',
    );
  });

  it('_meta.ui or the flat key written by hand', () => {
    for (const _meta of [{ ui: { resourceUri: 'ui://a/b' } }, { 'ui/resourceUri': 'ui://a/b' }]) {
      expect(() => decorateTool({ ui: { resource: 'ui://a/b' }, _meta })).toThrow(
        'set the view with the ui option only',
      );
    }
  });

  it('other _meta keys are kept beside ui', async () => {
    @Injectable()
    @UiResource({ uri: 'ui://a/b', html: PAGE })
    class Tools {
      @Tool({
        output: Out,
        _meta: { 'com.example/x': 1 },
        ui: { resource: 'ui://a/b', visibility: ['model', 'app'] },
      })
      run() {
        return { text: 'x' };
      }
    }
    @Module({ providers: [Tools] })
    class M {}
    const app = await GantryFactory.create(M, { name: 'x', version: '1', logger: false });
    const [answer] = await app.inject({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { initialize: true });
    expect(answer.result.tools[0]._meta).toEqual({
      'com.example/x': 1,
      ui: { resourceUri: 'ui://a/b', visibility: ['model', 'app'] },
      'ui/resourceUri': 'ui://a/b',
    });
    await app.close();
  });
});

describe('@UiResource options are checked when decorated', () => {
  it.each<[string, Partial<UiResourceOptions>, string]>([
    ['a non-ui URI', { uri: 'notes://board' }, "uri must be a ui:// URI such as 'ui://notes/board'"],
    [
      'a domain with a path',
      { csp: { connectDomains: ['https://api.example.com/v1'] } },
      'csp.connectDomains[0] "https://api.example.com/v1" is not an origin',
    ],
    ['a trailing slash', { csp: { resourceDomains: ['https://cdn.example.com/'] } }, 'is not an origin'],
    [
      'no scheme',
      { csp: { frameDomains: ['cdn.example.com'] } },
      'csp.frameDomains[0] "cdn.example.com" is not an origin',
    ],
    ['a CSP keyword', { csp: { resourceDomains: ["'self'"] } }, 'is not an origin'],
    [
      'a wildcard in the middle',
      { csp: { resourceDomains: ['https://cdn.*.example.com'] } },
      'is not an origin',
    ],
    ['a bare wildcard', { csp: { connectDomains: ['*'] } }, 'is not an origin'],
    [
      'a WebSocket outside connectDomains',
      { csp: { resourceDomains: ['wss://x.example.com'] } },
      'only connectDomains (connect-src) can use',
    ],
    [
      'a port out of range',
      { csp: { connectDomains: ['https://x.example.com:70000'] } },
      'has a port above 65535',
    ],
    [
      'domains not in an array',
      { csp: { connectDomains: 'https://x.example.com' as never } },
      'csp.connectDomains must be an array',
    ],
    ['an unknown csp key', { csp: { scriptDomains: [] } as never }, "unknown csp option 'scriptDomains'"],
    ['an unknown permission', { permissions: { usb: true } as never }, "unknown permission 'usb'"],
    [
      'a permission that is not a boolean',
      { permissions: { camera: {} as never } },
      'permissions.camera must be true or false',
    ],
    ['prefersBorder not a boolean', { prefersBorder: 'yes' as never }, 'prefersBorder must be a boolean'],
    ['an empty domain', { domain: '' }, 'domain must be a non-empty string'],
    ['an unknown option', { mimeType: 'text/html' } as never, "unknown option 'mimeType'"],
  ])('%s', (_what, extra, message) => {
    expect(() => decorateView({ uri: 'ui://v/x', html: PAGE, ...extra })).toThrow(message);
  });

  it('accepts origins with ports, wildcard subdomains and WebSockets in connectDomains', () => {
    expect(() =>
      decorateView({
        uri: 'ui://v/x',
        html: PAGE,
        csp: {
          connectDomains: ['http://localhost:3000', 'wss://*.live.example.com'],
          resourceDomains: ['https://*.example.com', 'https://cdn.example.com:8443'],
          frameDomains: ['https://www.youtube.com'],
          baseUriDomains: ['https://example.com'],
        },
      }),
    ).not.toThrow();
  });

  it('on a class it needs exactly one of html, file, directory', () => {
    expect(() => decorateView({ uri: 'ui://v/x' })).toThrow(
      'on a class, give the HTML with exactly one of html, file or directory',
    );
    expect(() => decorateView({ uri: 'ui://v/x', html: PAGE, file: 'x.html' })).toThrow(
      '(got html and file)',
    );
  });

  it('on a method it takes no html, file or directory', () => {
    class Views {
      view() {
        return PAGE;
      }
    }
    const descriptor = Object.getOwnPropertyDescriptor(Views.prototype, 'view') as PropertyDescriptor;
    expect(() =>
      UiResource({ uri: 'ui://v/x', file: 'view.html' })(Views.prototype, 'view', descriptor),
    ).toThrow("a method returns its view's HTML, so 'file' belongs on the class");
  });

  it('one URI twice on a class', () => {
    class Twice {}
    UiResource({ uri: 'ui://v/x', html: PAGE })(Twice);
    expect(() => UiResource({ uri: 'ui://v/x', html: PAGE })(Twice)).toThrow(
      'ui://v/x is declared twice on this class',
    );
  });
});

describe('bootstrap', () => {
  const create = (providers: Function[]) => {
    @Module({ providers: providers as never })
    class M {}
    return GantryFactory.create(M, { name: 'x', version: '1', logger: false });
  };

  it('a tool whose view nothing serves', async () => {
    @Injectable()
    class Orphan {
      @Tool({ ui: { resource: 'ui://nowhere/view' } })
      show() {
        return 'x';
      }
    }
    await expect(create([Orphan])).rejects.toThrow(
      "Tool 'show' (Orphan.show) shows the view ui://nowhere/view, but no resource serves it; declare it with @UiResource({ uri: 'ui://nowhere/view', … })",
    );
  });

  it('a tool whose view is served as another MIME type', async () => {
    @Injectable()
    class Wrong {
      @Resource({ uri: 'ui://wrong/view', mimeType: 'text/html' })
      view() {
        return PAGE;
      }

      @Tool({ ui: { resource: 'ui://wrong/view' } })
      show() {
        return 'x';
      }
    }
    await expect(create([Wrong])).rejects.toThrow(
      "Tool 'show' (Wrong.show) shows ui://wrong/view, which Wrong.view serves as text/html; a view is text/html;profile=mcp-app",
    );
  });

  it('an @Extension for the ui id keeps its own settings', async () => {
    @Injectable()
    @Extension({ id: UI_EXTENSION_ID, settings: { note: 'mine' } })
    @UiResource({ uri: 'ui://own/view', html: PAGE })
    class Own {}
    const app = await create([Own]);
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} },
      { stateless: true },
    );
    expect(answer.result.capabilities.extensions).toEqual({ [UI_EXTENSION_ID]: { note: 'mine' } });
    await app.close();
  });

  it('a view alone advertises the extension; an app without views does not', async () => {
    @Injectable()
    @UiResource({ uri: 'ui://only/view', html: PAGE })
    class OnlyView {}
    @Injectable()
    class Plain {
      @Tool()
      ping() {
        return 'pong';
      }
    }
    for (const [providers, expected] of [
      [[OnlyView], { [UI_EXTENSION_ID]: {} }],
      [[Plain], undefined],
    ] as const) {
      const app = await create([...providers]);
      const [answer] = await app.inject({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      });
      expect(answer.result.capabilities.extensions).toEqual(expected);
      await app.close();
    }
  });

  it('a fallback that throws is logged and the JSON text is sent', async () => {
    const errors: unknown[][] = [];
    const logger = { error: (...args: unknown[]) => errors.push(args), warn() {}, info() {}, debug() {} };
    @Injectable()
    @UiResource({ uri: 'ui://f/view', html: PAGE })
    class Failing {
      @Tool({
        output: Out,
        ui: {
          resource: 'ui://f/view',
          fallback: () => {
            throw new Error('render bug');
          },
        },
      })
      show() {
        return { text: 'x' };
      }
    }
    @Module({ providers: [Failing] })
    class M {}
    const app = await GantryFactory.create(M, { name: 'x', version: '1', logger: logger as never });
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'show', arguments: {} } },
      { initialize: true },
    );
    expect(answer.result.content).toEqual([{ type: 'text', text: '{"text":"x"}' }]);
    expect(String(errors[0]?.[0])).toContain("The ui.fallback of tool 'show' (Failing.show) failed");
    await app.close();
  });
});

describe('registry.add while serving', () => {
  @Injectable()
  @UiResource({ uri: 'ui://live/base', html: PAGE })
  class Base {}

  @Injectable()
  class Plain {
    @Tool()
    ping() {
      return 'pong';
    }
  }

  class LateView {
    @UiResource({ uri: 'ui://live/late' })
    view() {
      return PAGE;
    }

    @Tool({ ui: { resource: 'ui://live/late' } })
    late() {
      return 'late';
    }
  }

  class OrphanTool {
    @Tool({ ui: { resource: 'ui://live/none' } })
    orphan() {
      return 'x';
    }
  }

  const create = (providers: Function[]) => {
    @Module({ providers: providers as never })
    class M {}
    return GantryFactory.create(M, {
      name: 'x',
      version: '1',
      logger: false,
      capabilities: { resources: true, tools: true },
    });
  };

  it('adds a tool with the view it brings, when the extension was advertised', async () => {
    const app = await create([Base]);
    app.registry.add(new LateView());
    const [read] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'ui://live/late' } },
      { initialize: true },
    );
    expect(read.result.contents[0].mimeType).toBe('text/html;profile=mcp-app');
    await app.close();
  });

  it('refuses a tool whose view nothing serves', async () => {
    const app = await create([Base]);
    expect(() => app.registry.add(new OrphanTool())).toThrow(
      "Tool 'orphan' (OrphanTool.orphan) shows the view ui://live/none, but no resource serves it",
    );
    await app.close();
  });

  it('refuses views on a server that did not advertise the extension', async () => {
    const app = await create([Plain]);
    expect(() => app.registry.add(new LateView())).toThrow(
      `Cannot add LateView: the server did not advertise the MCP Apps extension ${UI_EXTENSION_ID} at bootstrap`,
    );
    await app.close();
  });
});
