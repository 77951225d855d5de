// docs/deploy.md, "One node, from a checkout", followed as it is written: the test reads the
// page's shell block and does what each line says (build, environment, start, curl probes,
// SIGTERM), on a free port instead of the documented one, so the page cannot drift from what
// the notes server really does.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = resolve(__dirname, '..', '..');
const PAGE = join(ROOT, 'docs', 'deploy.md');
const HEADING = '### One node, from a checkout';

/** The first fenced block of `language` under `heading` of docs/deploy.md. */
function blockUnder(heading: string, language: string): string {
  const markdown = readFileSync(PAGE, 'utf8');
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`docs/deploy.md has no "${heading}" section`);
  const block = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\\n\`\`\``).exec(markdown.slice(at));
  if (!block) throw new Error(`"${heading}" in docs/deploy.md has no ${language} block`);
  return block[1];
}

/** The shell block under HEADING, one command per line. */
function documentedCommands(): string[] {
  return blockUnder(HEADING, 'sh')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/**
 * Splits a command line into words as sh does for the subset the page uses: single quotes
 * (literal), double quotes (with $NAME expanded) and bare words (with $NAME expanded).
 */
function shellWords(line: string, env: Record<string, string | undefined>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const expand = (text: string) =>
    text.replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, name: string) => {
      const value = env[name];
      if (value === undefined) throw new Error(`$${name} is used before it is set: ${line}`);
      return value;
    });
  for (let i = 0; i < line.length; ) {
    const c = line[i];
    if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end === -1) throw new Error(`unclosed ${c} in: ${line}`);
      const inner = line.slice(i + 1, end);
      word = (word ?? '') + (c === '"' ? expand(inner) : inner);
      i = end + 1;
    } else {
      const end = line.slice(i).search(/[ '"]/);
      const bare = end === -1 ? line.slice(i) : line.slice(i, i + end);
      word = (word ?? '') + expand(bare);
      i += bare.length;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

function freePort(): Promise<number> {
  return new Promise((found, failed) => {
    const probe = createServer();
    probe.once('error', failed);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => found(port));
    });
  });
}

interface CurlCall {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** `curl -fsS [-H 'Name: value']… [-d 'body'] URL`, the only curl form the page uses. */
function curlCall(words: string[], port: number): CurlCall {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === '-fsS') continue;
    if (word === '-H') {
      const header = words[++i];
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    } else if (word === '-d') body = words[++i];
    else if (/^https?:\/\//.test(word)) url = word.replace(':3000/', `:${port}/`);
    else throw new Error(`curl option ${word} is not one the test knows`);
  }
  if (url === undefined) throw new Error(`curl without a URL: ${words.join(' ')}`);
  return { url, headers, body };
}

/** What curl -f would have done: the response, failing on an HTTP error status. */
async function curl(call: CurlCall): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(call.url, {
    method: call.body === undefined ? 'GET' : 'POST',
    headers: call.headers,
    body: call.body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`curl -f ${call.url}: HTTP ${response.status}: ${text}`);
  return { status: response.status, type: response.headers.get('content-type') ?? '', text };
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((done, failed) => {
    execFile(command, args, { cwd: ROOT, timeout: 120_000 }, (error, _stdout, stderr) =>
      error ? failed(new Error(`${command} ${args.join(' ')} failed: ${stderr}`)) : done(),
    );
  });
}

describe('docs/deploy.md, one node from a checkout, followed line by line', () => {
  let server: ChildProcess | undefined;

  afterEach(() => {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  });

  it('builds, starts with keys and metrics, answers the probes, MCP with a key, /metrics, and exits 0 on SIGTERM', async () => {
    const commands = documentedCommands();
    const env: Record<string, string | undefined> = { ...process.env };
    const port = await freePort();
    let stderr = '';
    const seen: string[] = [];
    const answers = new Map<string, { status: number; type: string; text: string }>();
    let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;

    for (const line of commands) {
      const exported = /^export ([A-Z_][A-Z0-9_]*)="\$\(openssl rand -hex (\d+)\)"$/.exec(line);
      const words = exported ? [] : shellWords(line.replace(/ &$/, ''), env);
      if (exported) {
        env[exported[1]] = randomBytes(Number(exported[2])).toString('hex');
        seen.push(`export ${exported[1]}`);
      } else if (line === 'npm ci') {
        // The test command installed exactly the lockfile already (`npm ci` is its first step).
        seen.push('npm ci');
      } else if (line === 'npm run build') {
        await run('npm', ['run', 'build']);
        seen.push('npm run build');
      } else if (words[0] === 'node' && line.endsWith(' &')) {
        const args = words.slice(1).map((word, i, all) => (all[i - 1] === '--port' ? String(port) : word));
        expect(args).toContain('--port');
        server = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
        const child = server;
        exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
        await new Promise<void>((ready, failed) => {
          child.stderr?.on('data', (chunk: Buffer) => {
            stderr += chunk.toString('utf8');
            if (stderr.includes(`is serving MCP on http://127.0.0.1:${port}/mcp`)) ready();
          });
          child.once('exit', (code) => failed(new Error(`the server exited with ${code}:\n${stderr}`)));
        });
        seen.push('start');
      } else if (words[0] === 'curl') {
        const call = curlCall(words, port);
        if (call.body !== undefined) {
          // Without the key the same request is refused: the key is what lets it in.
          const { 'X-API-Key': _key, ...withoutKey } = call.headers;
          const refused = await fetch(call.url, { method: 'POST', headers: withoutKey, body: call.body });
          expect(refused.status).toBe(401);
        }
        answers.set(new URL(call.url).pathname, await curl(call));
        seen.push(`curl ${new URL(call.url).pathname}`);
      } else if (line === 'kill -TERM %1') {
        server?.kill('SIGTERM');
        seen.push('kill -TERM');
      } else {
        throw new Error(`docs/deploy.md: the test does not know how to follow "${line}"`);
      }
    }

    // Every documented step ran, in the page's order.
    expect(seen).toEqual([
      'npm ci',
      'npm run build',
      'export NOTES_API_KEYS',
      'export GANTRY_STATE_KEY',
      'start',
      'curl /healthz',
      'curl /readyz',
      'curl /mcp',
      'curl /metrics',
      'kill -TERM',
    ]);
    expect(JSON.parse(answers.get('/healthz')?.text ?? '')).toEqual({ status: 'ok' });
    expect(JSON.parse(answers.get('/readyz')?.text ?? '')).toMatchObject({
      status: 'ready',
      checks: { bootstrapped: { ok: true }, draining: { ok: true } },
    });
    const mcp = answers.get('/mcp');
    const message = mcp?.type.startsWith('text/event-stream')
      ? JSON.parse(/^data: (.*)$/m.exec(mcp.text)?.[1] ?? '')
      : JSON.parse(mcp?.text ?? '');
    expect(message.result).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'gantry-notes' },
    });
    expect(answers.get('/metrics')?.type).toMatch(/^text\/plain/);
    expect(answers.get('/metrics')?.text).toMatch(
      /^mcp_server_operation_duration_count\{[^}]*mcp_method_name="initialize"[^}]*\} 1$/m,
    );
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 180_000);
});

describe("docs/deploy.md, the Kubernetes manifest against the page's Dockerfile", () => {
  const manifests = parseAllDocuments(blockUnder('## Kubernetes', 'yaml')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`the manifest is not YAML: ${doc.errors[0].message}`);
    return doc.toJS() as Record<string, any>;
  });
  const dockerfile = blockUnder('## Docker', 'dockerfile');
  const service = manifests.find((m) => m.kind === 'Service');
  const deployment = manifests.find((m) => m.kind === 'Deployment');
  const [container] = deployment?.spec.template.spec.containers ?? [];

  it('is a Service and a Deployment whose selector finds its pods, without session affinity', () => {
    expect(manifests.map((m) => `${m.apiVersion} ${m.kind}`)).toEqual(['v1 Service', 'apps/v1 Deployment']);
    const labels = deployment?.spec.template.metadata.labels;
    expect(service?.spec.selector).toEqual(labels);
    expect(deployment?.spec.selector.matchLabels).toEqual(labels);
    expect(service?.spec.sessionAffinity ?? 'None').toBe('None');
  });

  it("runs the image's own CMD, on the port the image listens on, probed where Gantry answers", () => {
    // In Kubernetes `command` replaces the ENTRYPOINT and `args` the CMD: neither may be set.
    expect(container.command).toBeUndefined();
    expect(container.args).toBeUndefined();
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
    const port = Number(/^ENV HOST=0\.0\.0\.0 PORT=(\d+)$/m.exec(dockerfile)?.[1]);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${port}$`, 'm'));
    expect(container.ports).toEqual([{ containerPort: port }]);
    expect(service?.spec.ports).toEqual([{ port: 80, targetPort: port }]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port });
    // The secret the page's checklist names, from a Secret, never in the image.
    expect(container.env).toEqual([
      { name: 'GANTRY_STATE_KEY', valueFrom: { secretKeyRef: { name: 'gantry', key: 'state-key' } } },
    ]);
    expect(dockerfile).not.toMatch(/GANTRY_STATE_KEY/);
  });

  it('gives a pod time for the preStop pause and the drain before SIGKILL', () => {
    const pause = container.lifecycle.preStop.sleep.seconds;
    // shutdownGraceMs defaults to 10 s (the drain, above on the page).
    expect(deployment?.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(pause + 10);
  });
});
