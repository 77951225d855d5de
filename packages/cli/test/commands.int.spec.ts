import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExitCode } from '../src/exit-codes';
import { CLI, NOTES, nodeTarget, REGISTER, runCli, startNotesHttp, startNotesWs } from './support/run-cli';

const CONTENT_SERVER = nodeTarget('-r', REGISTER, resolve(__dirname, 'fixtures/content-server.ts'));
const NOTES_TOOLS = 'create_note, get_note, search_notes, move_note, delete_note, export_notes, import_notes';

describe('gantry against apps/notes over stdio', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const notes = nodeTarget(NOTES);

  /** The one note in `dir`, made through the CLI before the tests. */
  let id: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-cli-notes-'));
    env = { ...process.env, NOTES_DIR: dir, COLUMNS: '100' };
    const created = await runCli(
      ['call', notes, 'create_note', '--args', '{"title":"Shopping","body":"milk, eggs","tags":["home"]}'],
      { env },
    );
    id = /^Created note ([0-9a-f]{8}): Shopping\n$/.exec(created.stdout)![1];
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('list prints the tools as a table', async () => {
    expect(await runCli(['list', notes], { env })).toEqual({
      code: 0,
      stdout: [
        'NAME          ARGUMENTS            DESCRIPTION',
        'create_note   title, body, tags?   Create a note and return its id',
        'get_note      id                   Read one note by id',
        'search_notes  query, tag?, limit?  Search notes by words and tag, newest first',
        'move_note     id, status           Move a note to another column of the board (todo, doing, done)',
        'delete_note   id                   Delete a note by id',
        'export_notes  format               Export every note as Markdown or JSON (runs as a task; takes a s…',
        'import_notes  content              Import notes written by export_notes (format json); asks for a c…',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('list --all adds resources, templates and prompts under headings', async () => {
    const { code, stdout } = await runCli(['list', notes, '--all'], { env });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Tools\nNAME +ARGUMENTS +DESCRIPTION\n/);
    expect(stdout).toContain(
      [
        '\nResources',
        'URI                          NAME         MIME TYPE                  DESCRIPTION',
        'notes://index                index        text/markdown              All notes',
        'ui://notes/board             notes-board  text/html;profile=mcp-app  The notes as a board: todo, do…',
        `notes://${id}             ${id}     text/markdown              Shopping`,
        'skill://tidy-notes/SKILL.md  tidy-notes   text/markdown              How to keep a tidy notes store…\n',
      ].join('\n'),
    );
    expect(stdout).toContain(
      [
        '\nResource templates',
        'URI TEMPLATE     NAME    MIME TYPE      DESCRIPTION',
        'notes://{id}     note    text/markdown  A note',
        'skill://{+path}  skills                 The files of the skills this server serves (io.modelcontext…\n',
      ].join('\n'),
    );
    expect(stdout).toContain(
      '\nPrompts\nNAME            ARGUMENTS   DESCRIPTION\nsummarize_note  id, style?  Ask the model to summarize one note\n',
    );
  });

  it('list --json prints the raw lists', async () => {
    const { code, stdout } = await runCli(['list', notes, '--json', '--prompts'], { env });
    expect(code).toBe(0);
    const lists = JSON.parse(stdout);
    expect(Object.keys(lists)).toEqual(['prompts']);
    expect(lists.prompts[0]).toMatchObject({
      name: 'summarize_note',
      arguments: [
        { name: 'id', required: true },
        { name: 'style', required: false },
      ],
    });
    const tools = JSON.parse((await runCli(['list', notes, '--json'], { env })).stdout);
    expect(tools.tools.map((t: { name: string }) => t.name).join(', ')).toBe(NOTES_TOOLS);
  });

  it('call prints text content, and structuredContent as indented JSON', async () => {
    const own = mkdtempSync(join(tmpdir(), 'gantry-cli-call-'));
    const ownEnv = { ...process.env, NOTES_DIR: own };
    try {
      const created = await runCli(
        ['call', notes, 'create_note', '-a', 'title=Groceries', '-a', 'body=bread', '-a', 'tags=["food"]'],
        { env: ownEnv },
      );
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(/^Created note [0-9a-f]{8}: Groceries\n$/);
      const newId = /note ([0-9a-f]{8})/.exec(created.stdout)![1];

      const found = await runCli(
        ['call', notes, 'search_notes', '--args', '{"query":"bread"}', '-a', 'limit=5'],
        {
          env: ownEnv,
        },
      );
      expect(found.code).toBe(0);
      expect(JSON.parse(found.stdout)).toMatchObject({
        count: 1,
        notes: [{ id: newId, title: 'Groceries', tags: ['food'] }],
      });
      expect(found.stdout).toMatch(/^\{\n {2}"count": 1,\n {2}"notes": \[\n/);

      const raw = await runCli(['call', notes, 'search_notes', '-a', 'query=bread', '--json'], {
        env: ownEnv,
      });
      expect(JSON.parse(raw.stdout)).toMatchObject({
        content: [{ type: 'text' }],
        structuredContent: { count: 1 },
      });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('call --task runs the tool as a task, a status line per change on stderr, the result on stdout', async () => {
    const run = await runCli(['call', notes, 'export_notes', '-a', 'format=json', '--task'], { env });
    expect(run.code).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^task [0-9a-f]{8} working/);
    expect(lines.at(-1)).toMatch(/^task [0-9a-f]{8} completed/);
    expect(run.stderr).toContain('exported Shopping');
    expect(JSON.parse(run.stdout)).toMatchObject({ format: 'json', count: 1 });
  });

  it('call exits 1 for an unknown tool, naming the tools there are', async () => {
    expect(await runCli(['call', notes, 'create_notes'], { env })).toEqual({
      code: ExitCode.ToolError,
      stdout: '',
      stderr: `gantry: unknown tool "create_notes"; the server's tools are: ${NOTES_TOOLS}\n`,
    });
  });

  it('call exits 1 when the tool answers isError, with its message on stderr', async () => {
    expect(await runCli(['call', notes, 'get_note', '-a', 'id=00000000'], { env })).toEqual({
      code: ExitCode.ToolError,
      stdout: '',
      stderr: 'No note with id 00000000\ngantry: tool "get_note" reported an error (isError: true)\n',
    });
    const raw = await runCli(['call', notes, 'get_note', '-a', 'id=00000000', '--json'], { env });
    expect(raw.code).toBe(ExitCode.ToolError);
    expect(JSON.parse(raw.stdout)).toEqual({
      content: [{ type: 'text', text: 'No note with id 00000000' }],
      isError: true,
    });
  });

  it('call -a id=42 against a string argument reports one type error, exit 2', async () => {
    expect(await runCli(['call', notes, 'get_note', '-a', 'id=42'], { env })).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: `gantry: -a id=42: "id" is a string, but 42 reads as JSON (a number); quote it to send the text: -a 'id="42"'\n`,
    });
    // Quoted as told, the value reaches the tool as text (and fails its own check, once).
    expect(await runCli(['call', notes, 'get_note', '-a', 'id="42"'], { env })).toMatchObject({
      code: ExitCode.ToolError,
      stderr: expect.stringMatching(
        /^Invalid arguments for tool 'get_note': id: must match .*\n.*isError: true\)\n$/,
      ),
    });
  });

  it('read prints a resource; an unknown one exits 1', async () => {
    const index = await runCli(['read', notes, 'notes://index'], { env });
    expect(index.code).toBe(0);
    expect(index.stdout).toBe(`# Notes\n\n- [Shopping](notes://${id}) — home\n`);

    const missing = await runCli(['read', notes, 'notes://ffffffff'], { env });
    expect(missing.code).toBe(ExitCode.ToolError);
    expect(missing.stderr).toBe(
      `gantry: resources/read "notes://ffffffff" failed: Resource not found: notes://ffffffff (JSON-RPC error -32602); data: {"uri":"notes://ffffffff"}\n(listed resources: notes://index, ui://notes/board, notes://${id}, skill://tidy-notes/SKILL.md)\n`,
    );
  });

  it('prompt prints the messages; an unknown prompt exits 1', async () => {
    const prompt = await runCli(['prompt', notes, 'summarize_note', '-a', `id=${id}`, '-a', 'style=tweet'], {
      env,
    });
    expect(prompt).toEqual({
      code: 0,
      stdout: `[user]\nSummarize the following note in at most 280 characters.\n\n[user]\n[resource notes://${id} text/markdown]\n# Shopping\n\nmilk, eggs\n`,
      stderr: '',
    });
    expect(await runCli(['prompt', notes, 'summarise_note'], { env })).toEqual({
      code: ExitCode.ToolError,
      stdout: '',
      stderr: `gantry: unknown prompt "summarise_note"; the server's prompts are: summarize_note\n`,
    });
  });

  it('--env and --cwd reach the server', async () => {
    const other = mkdtempSync(join(tmpdir(), 'gantry-cli-env-'));
    const cwd = mkdtempSync(join(tmpdir(), 'gantry-cli-cwd-'));
    try {
      const { NOTES_DIR: _, ...withoutDir } = process.env;
      await runCli(
        ['call', notes, 'create_note', '-a', 'title=a', '-a', 'body=b', '--env', `NOTES_DIR=${other}`],
        {
          env: withoutDir,
        },
      );
      expect(JSON.parse(readFileSync(join(other, 'notes.json'), 'utf8'))).toMatchObject({
        notes: [{ title: 'a' }],
      });
      // Without NOTES_DIR, notes keeps its file under ./data, relative to --cwd.
      await runCli(['call', notes, 'create_note', '-a', 'title=c', '-a', 'body=d', '--cwd', cwd], {
        env: withoutDir,
      });
      expect(existsSync(join(cwd, 'data', 'notes.json'))).toBe(true);
    } finally {
      rmSync(other, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("keeps the server's stderr quiet unless --server-stderr", async () => {
    expect((await runCli(['list', notes], { env })).stderr).toBe('');
    const shown = await runCli(['list', notes, '--server-stderr'], { env });
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain('gantry-notes is serving MCP on stdio');
  });
});

describe('gantry call rendering and failures (fixture server)', () => {
  it('shows images and audio as placeholders with their size', async () => {
    expect(await runCli(['call', CONTENT_SERVER, 'media'])).toEqual({
      code: 0,
      stdout:
        'a chart:\n[image image/png, 4 bytes]\n[audio audio/wav, 3 bytes]\n[resource link file:///report.pdf (report, application/pdf)]\n',
      stderr: '',
    });
  });

  it('sends -a values parsed as JSON, nested on dots, on top of --args', async () => {
    const { code, stdout } = await runCli([
      'call',
      CONTENT_SERVER,
      'echo',
      '--args',
      '{"query":"x","limit":1}',
      '-a',
      'limit=5',
      '-a',
      'draft=true',
      '-a',
      'filter.tag=work',
      '-a',
      'id="007"',
      '-a',
      'title=hello world',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      query: 'x',
      limit: 5,
      draft: true,
      filter: { tag: 'work' },
      id: '007',
      title: 'hello world',
    });
  });

  it('exits 1 on a thrown tool error', async () => {
    expect(await runCli(['call', CONTENT_SERVER, 'fail'])).toEqual({
      code: ExitCode.ToolError,
      stdout: '',
      stderr: 'the disk is full\ngantry: tool "fail" reported an error (isError: true)\n',
    });
  });

  it('reports -a name=42 against a string argument once when the server answers −32602 (exit 2)', async () => {
    const server = nodeTarget(resolve(__dirname, 'fixtures/invalid-params-server.cjs'));
    expect(await runCli(['call', server, 'greet', '-a', 'name=42'])).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: `gantry: -a name=42: "name" is a string, but 42 reads as JSON (a number); quote it to send the text: -a 'name="42"'\n`,
    });
    // Without a mismatch, the server's error is reported as it is.
    expect(await runCli(['call', server, 'greet', '-a', 'name=Ada'])).toEqual({
      code: ExitCode.ToolError,
      stdout: '',
      stderr:
        'gantry: tools/call "greet" failed: Invalid params: name must be a string; name must be longer than 1; name is required (JSON-RPC error -32602)\n',
    });
  });

  it('exits 3 when the server dies during the call, quoting its stderr', async () => {
    const { code, stdout, stderr } = await runCli(['call', CONTENT_SERVER, 'crash']);
    expect(code).toBe(ExitCode.Connection);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^gantry: the connection to ".*content-server\.ts'" closed: MCP server ".*" exited with code 7; last stderr output:\nfatal: lost the database connection\n$/,
    );
  });

  it('exits 3 when the answer does not come within --timeout', async () => {
    expect(await runCli(['call', CONTENT_SERVER, 'slow', '--timeout', '500'])).toEqual({
      code: ExitCode.Connection,
      stdout: '',
      stderr: 'gantry: Request "tools/call" timed out after 500 ms; raise --timeout if it needs longer\n',
    });
  });
});

describe('Ctrl+C during a call', () => {
  it('cancels the call, closes the server and exits 130', async () => {
    const child = spawn(process.execPath, [CLI, 'call', CONTENT_SERVER, 'slow', '--server-stderr'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    // The tool says when it has started: the call is then in flight.
    await new Promise<void>((done) =>
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('slow: waiting\n')) done();
      }),
    );
    child.kill('SIGINT');
    const code = await new Promise((done) => child.once('close', done));
    expect({ code, stdout, stderr }).toEqual({
      code: 130,
      stdout: '',
      stderr: 'slow: waiting\ngantry: interrupted\n',
    });
  });
});

describe('gantry cannot connect (exit 3)', () => {
  it('when the server command does not exist', async () => {
    expect(await runCli(['list', 'gantry-no-such-server --stdio'])).toEqual({
      code: ExitCode.Connection,
      stdout: '',
      stderr:
        'gantry: cannot connect to "gantry-no-such-server --stdio": Cannot start the MCP server: command "gantry-no-such-server" was not found; check its spelling and PATH, or give an absolute path (spawn gantry-no-such-server ENOENT)\n',
    });
  });

  it('when the server exits before the handshake, quoting its stderr', async () => {
    const target = `node -e 'console.error("NOTES_TOKEN is not set"); process.exit(4)'`;
    expect(await runCli(['list', target])).toEqual({
      code: ExitCode.Connection,
      stdout: '',
      stderr: `gantry: cannot connect to ${JSON.stringify(target)}: MCP server "node" exited with code 4; last stderr output:\nNOTES_TOKEN is not set\n`,
    });
  });

  it('when the command never answers initialize', async () => {
    const { code, stderr } = await runCli(['list', `node -e 'process.stdin.resume()'`, '--timeout', '300']);
    expect(code).toBe(ExitCode.Connection);
    expect(stderr).toBe(
      `gantry: cannot connect to "node -e 'process.stdin.resume()'": Request "initialize" timed out after 300 ms\n(is it an MCP server on stdio? raise --timeout if it starts slowly; --server-stderr shows its output)\n`,
    );
  });

  it('when nothing listens at the URL', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    await new Promise((done) => server.close(done));
    const { code, stderr } = await runCli(['list', `http://127.0.0.1:${port}/mcp`]);
    expect(code).toBe(ExitCode.Connection);
    expect(stderr).toMatch(
      new RegExp(
        `^gantry: cannot connect to http://127\\.0\\.0\\.1:${port}/mcp: Cannot reach the MCP server: POST http://127\\.0\\.0\\.1:${port}/mcp failed \\(.*ECONNREFUSED.*\\)\\n$`,
      ),
    );
  });

  describe('when the server refuses the credentials', () => {
    let server: Server;
    let url: string;
    const seen: IncomingHttpHeaders[] = [];

    beforeAll(async () => {
      server = createServer((request, response) => {
        seen.push(request.headers);
        request.resume();
        response.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"', 'content-type': 'text/plain' });
        response.end('token expired');
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    });
    afterAll(() => new Promise((done) => server.close(done)));

    it('sends --token and --header, and exits 3 with a hint', async () => {
      const { code, stdout, stderr } = await runCli([
        'list',
        url,
        '--token',
        's3cret',
        '-H',
        'X-Tenant: acme',
      ]);
      expect(code).toBe(ExitCode.Connection);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        `gantry: cannot connect to ${url}: HTTP 401 Unauthorized from POST ${url}: token expired (WWW-Authenticate: Bearer realm="mcp")\n(the server wants credentials: pass --oauth to sign in, or --token <token> or --header 'Authorization: …')\n`,
      );
      expect(seen[0]).toMatchObject({ authorization: 'Bearer s3cret', 'x-tenant': 'acme' });
    });
  });
});

describe('gantry cannot connect over WebSocket (exit 3)', () => {
  let server: Server;
  let url: string;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer();
    server.on('upgrade', (request, socket) => {
      seen.push(request.headers);
      socket.end(
        'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Type: text/plain\r\n' +
          'Content-Length: 14\r\nConnection: close\r\n\r\ntoken expired\n',
      );
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('sends --token and --header on the upgrade, and exits 3 with a hint when refused', async () => {
    const { code, stdout, stderr } = await runCli(['list', url, '--token', 's3cret', '-H', 'X-Tenant: acme']);
    expect(code).toBe(ExitCode.Connection);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `gantry: cannot connect to ${url}: WebSocket upgrade refused with HTTP 401: token expired\n(the server wants credentials: pass --oauth to sign in, or --token <token> or --header 'Authorization: …')\n`,
    );
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer s3cret',
      'x-tenant': 'acme',
      'sec-websocket-protocol': 'mcp',
    });
  });

  it('when nothing listens at the URL', async () => {
    const { port } = server.address() as AddressInfo;
    const free = createServer();
    await new Promise<void>((done) => free.listen(0, '127.0.0.1', done));
    const freePort = (free.address() as AddressInfo).port;
    await new Promise((done) => free.close(done));
    expect(freePort).not.toBe(port);
    const { code, stderr } = await runCli(['list', `ws://127.0.0.1:${freePort}/mcp`]);
    expect(code).toBe(ExitCode.Connection);
    expect(stderr).toMatch(
      new RegExp(
        `^gantry: cannot connect to ws://127\\.0\\.0\\.1:${freePort}/mcp: Cannot open WebSocket ws://127\\.0\\.0\\.1:${freePort}/mcp: connect ECONNREFUSED`,
      ),
    );
  });
});

describe('gantry against apps/notes over WebSocket', () => {
  let dir: string;
  let notes: Awaited<ReturnType<typeof startNotesWs>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-cli-ws-'));
    notes = await startNotesWs({ ...process.env, NOTES_DIR: dir });
  });
  afterAll(async () => {
    await notes.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists, calls, reads and gets prompts over ws://', async () => {
    const list = await runCli(['list', notes.url, '--json']);
    expect(list.code).toBe(0);
    expect(
      JSON.parse(list.stdout)
        .tools.map((t: { name: string }) => t.name)
        .join(', '),
    ).toBe(NOTES_TOOLS);

    const created = await runCli([
      'call',
      notes.url,
      'create_note',
      '-a',
      'title=Over WebSocket',
      '-a',
      'body=frames',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created note [0-9a-f]{8}: Over WebSocket\n$/);

    const index = await runCli(['read', notes.url, 'notes://index']);
    expect(index.stdout).toMatch(/^# Notes\n\n- \[Over WebSocket\]\(notes:\/\/[0-9a-f]{8}\)\n$/);

    const id = /([0-9a-f]{8})/.exec(created.stdout)?.[1] as string;
    const prompt = await runCli(['prompt', notes.url, 'summarize_note', '-a', `id=${id}`]);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain('Over WebSocket');

    expect((await runCli(['call', notes.url, 'nope'])).code).toBe(ExitCode.ToolError);
    expect((await runCli(['list', notes.url, '--env', 'A=1'])).stderr).toBe(
      'gantry: --env applies to a stdio (command line) target only\n',
    );
  });
});

describe('gantry against apps/notes over HTTP', () => {
  let dir: string;
  let notes: Awaited<ReturnType<typeof startNotesHttp>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-cli-http-'));
    notes = await startNotesHttp({ ...process.env, NOTES_DIR: dir });
  });
  afterAll(async () => {
    await notes.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists, calls and reads over Streamable HTTP', async () => {
    const list = await runCli(['list', notes.url, '--json']);
    expect(list.code).toBe(0);
    expect(
      JSON.parse(list.stdout)
        .tools.map((t: { name: string }) => t.name)
        .join(', '),
    ).toBe(NOTES_TOOLS);

    const created = await runCli([
      'call',
      notes.url,
      'create_note',
      '-a',
      'title=Over HTTP',
      '-a',
      'body=it works',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created note [0-9a-f]{8}: Over HTTP\n$/);

    const index = await runCli(['read', notes.url, 'notes://index']);
    expect(index.stdout).toMatch(/^# Notes\n\n- \[Over HTTP\]\(notes:\/\/[0-9a-f]{8}\)\n$/);

    expect((await runCli(['call', notes.url, 'nope'])).code).toBe(ExitCode.ToolError);
  });

  it('a ws:// target says the HTTP-only endpoint does not accept WebSocket, and offers http://', async () => {
    const ws = notes.url.replace(/^http:/, 'ws:');
    expect(await runCli(['list', ws])).toEqual({
      code: ExitCode.Connection,
      stdout: '',
      stderr: `gantry: cannot connect to ${ws}: the endpoint does not accept WebSocket (it answered the upgrade with HTTP 406, as an MCP endpoint over HTTP does)\n(it serves MCP over HTTP: try ${notes.url})\n`,
    });
  });

  it('a base URL without /mcp answering 404 suggests <url>/mcp, naming the URL once', async () => {
    const base = notes.url.replace(/\/mcp$/, '');
    const { code, stdout, stderr } = await runCli(['list', base]);
    expect({ code, stdout }).toEqual({ code: ExitCode.Connection, stdout: '' });
    expect(stderr).toMatch(
      new RegExp(
        `^gantry: cannot connect to ${base}/: POST initialize answered HTTP 404, so this is not a Streamable HTTP endpoint, and the HTTP\\+SSE fallback failed too: .*\n\\(nothing serves MCP at /; Gantry serves it at /mcp by default: try ${notes.url}\\)\n$`,
      ),
    );
    expect(stderr).not.toMatch(/Cannot connect/);
  });
});
