import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addTransportBranch } from '../src/scaffold/main-editor';
import { fillPlaceholders } from '../src/scaffold/template-files';

const HTTP = { flag: '--http', functionName: 'serveHttp', importPath: './serve-http' };
const WS = { flag: '--ws', functionName: 'serveWebSocket', importPath: './serve-ws' };

/** src/main.ts as `gantry new --transport <transport>` writes it. */
function generatedMain(transport: 'stdio' | 'http'): string {
  const file = join(__dirname, '../templates', transport, 'src/main.ts');
  return fillPlaceholders(readFileSync(file, 'utf8'), { serverName: 'demo' }, file);
}

function edited(source: string, branch = HTTP): string {
  const edit = addTransportBranch(source, branch);
  if (!edit.ok) throw new Error(`not edited: ${edit.reason}`);
  return edit.text;
}

describe('gantry add: the main.ts edit', () => {
  it('puts the flag branch before the stdio listen of a generated main.ts, and the import after the last one', () => {
    const source = generatedMain('stdio');
    const text = edited(source);
    expect(text).toContain(
      [
        "import { GantryFactory, stdio } from '@gantry/core';",
        "import { AppModule } from './app.module';",
        "import { serveHttp } from './serve-http';",
        '',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        "  const app = await GantryFactory.create(AppModule, { name: 'demo', version: '0.1.0' });",
        "  if (process.argv.includes('--http')) return serveHttp(app);",
        '  // Serves MCP on stdin/stdout until stdin ends: an MCP client starts this process.',
        '  await app.listen(stdio());',
      ].join('\n'),
    );
    // Nothing else changed.
    expect(
      text
        .replace("import { serveHttp } from './serve-http';\n", '')
        .replace("  if (process.argv.includes('--http')) return serveHttp(app);\n", ''),
    ).toBe(source);
  });

  it('adds ws after http, each with its own branch', () => {
    const text = edited(edited(generatedMain('stdio')), WS);
    expect(text).toContain(
      [
        "  if (process.argv.includes('--http')) return serveHttp(app);",
        "  if (process.argv.includes('--ws')) return serveWebSocket(app);",
        '  // Serves MCP on stdin/stdout',
      ].join('\n'),
    );
    expect(text).toContain(
      "import { serveHttp } from './serve-http';\nimport { serveWebSocket } from './serve-ws';\n",
    );
  });

  it('adds ws to an HTTP project before its multi-line listen', () => {
    const text = edited(generatedMain('http'), WS);
    expect(text).toContain(
      "  if (process.argv.includes('--ws')) return serveWebSocket(app);\n  await app.listen(\n    http({\n",
    );
  });

  it('keeps CRLF, the variable name and missing semicolons', () => {
    const source = [
      "import { GantryFactory, stdio } from '@gantry/core'",
      "import { AppModule } from './app.module'",
      '',
      'const main = async () => {',
      "  const server = await GantryFactory.create(AppModule, { name: 'x', version: '1' })",
      '  await server.listen(stdio())',
      '}',
      '',
    ].join('\r\n');
    expect(edited(source)).toBe(
      [
        "import { GantryFactory, stdio } from '@gantry/core'",
        "import { AppModule } from './app.module'",
        "import { serveHttp } from './serve-http'",
        '',
        'const main = async () => {',
        "  const server = await GantryFactory.create(AppModule, { name: 'x', version: '1' })",
        "  if (process.argv.includes('--http')) return serveHttp(server);",
        '  await server.listen(stdio())',
        '}',
        '',
      ].join('\r\n'),
    );
  });

  it.each([
    [
      'no listen',
      "import { GantryFactory } from '@gantry/core';\nexport const app = GantryFactory;\n",
      'it has no app.listen(...) call',
    ],
    [
      'two listens',
      'async function main() {\n  await app.listen(stdio());\n  await app.listen(other());\n}\n',
      'it has 2 .listen(...) calls, and which one is the default transport is yours to say',
    ],
    [
      'a listen inside an expression',
      'async function main() {\n  const done = app.listen(stdio());\n}\n',
      'its app.listen(...) call does not start a line of its own',
    ],
    [
      'a top-level listen, where return is not allowed',
      'const app = await create();\nawait app.listen(stdio());\n',
      'its app.listen(...) is not inside a function, where a return could choose another transport',
    ],
    [
      'a flag handled by hand',
      "async function main() {\n  if (process.argv.includes('--http')) await web(app);\n  await app.listen(stdio());\n}\n",
      'it handles --http already',
    ],
    [
      'the function imported already',
      "import { serveHttp } from './serve-http';\nasync function main() {\n  await app.listen(stdio());\n}\n",
      'it imports serveHttp already',
    ],
  ])('refuses %s, with the reason', (_, source, reason) => {
    expect(addTransportBranch(source, HTTP)).toEqual({ ok: false, reason });
  });

  it('ignores listen in comments and strings', () => {
    const source =
      "// app.listen(http()) is for later\nasync function main() {\n  const s = 'x.listen(y)';\n  await app.listen(stdio());\n}\n";
    expect(edited(source)).toContain(
      "  const s = 'x.listen(y)';\n  if (process.argv.includes('--http')) return serveHttp(app);\n  await app.listen(stdio());\n",
    );
  });
});
