import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthorizationInteraction } from '@gantry/client';
import { AuthorizationError, loopbackInteraction } from '@gantry/client';

const AUTHORIZE = new URL('https://auth.example.com/authorize?client_id=gantry&state=xyz');

const interactions: AuthorizationInteraction[] = [];
const blockers: Server[] = [];
afterEach(async () => {
  await Promise.all(interactions.splice(0).map((i) => i.close()));
  await Promise.all(blockers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A loopback interaction whose opener records what it was asked to open. */
function recorded(options: Parameters<typeof loopbackInteraction>[0] = {}) {
  const opened: URL[] = [];
  const lines: string[] = [];
  const interaction = loopbackInteraction({
    open: (url) => {
      opened.push(url);
    },
    log: (line) => lines.push(line),
    ...options,
  });
  interactions.push(interaction);
  return { interaction, opened, lines };
}

/** Resolves once `open` has been called, so the listener is waiting (a fetch before that gets 404). */
function openedOnce(options: Parameters<typeof loopbackInteraction>[0] = {}) {
  let signal!: () => void;
  const whenOpened = new Promise<void>((resolve) => {
    signal = resolve;
  });
  const lines: string[] = [];
  const interaction = loopbackInteraction({
    open: () => signal(),
    log: (line) => lines.push(line),
    ...options,
  });
  interactions.push(interaction);
  return { interaction, whenOpened, lines };
}

/** A port something else is listening on. */
async function busyPort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  blockers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as { port: number }).port;
}

/** A GET with a chosen Host header (fetch would not let a test forge it). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('loopbackInteraction.redirectUri', () => {
  it('listens on 127.0.0.1, an ephemeral port and /callback by default', async () => {
    const { interaction } = recorded();
    const uri = new URL(await interaction.redirectUri());
    expect(uri.protocol).toBe('http:');
    expect(uri.hostname).toBe('127.0.0.1');
    expect(Number(uri.port)).toBeGreaterThan(0);
    expect(uri.pathname).toBe('/callback');
    // Asked again, it is the same listener.
    expect(await interaction.redirectUri()).toBe(uri.href);
  });

  it('reuses the port and path of a stored redirect URI when the port is free', async () => {
    const first = recorded();
    const stored = (await first.interaction.redirectUri()).replace('/callback', '/cb');
    await first.interaction.close();
    const { interaction } = recorded();
    expect(await interaction.redirectUri(stored)).toBe(stored);
  });

  it('falls back to an ephemeral port when the stored one is taken', async () => {
    const port = await busyPort();
    const { interaction } = recorded();
    const uri = new URL(await interaction.redirectUri(`http://127.0.0.1:${port}/callback`));
    expect(Number(uri.port)).not.toBe(port);
    expect(Number(uri.port)).toBeGreaterThan(0);
  });

  it('ignores a stored redirect URI that is not on its loopback address', async () => {
    const { interaction } = recorded();
    const uri = new URL(await interaction.redirectUri('https://app.example.com/callback'));
    expect(uri.host).not.toBe('app.example.com');
    expect(uri.hostname).toBe('127.0.0.1');
  });

  it('refuses a configured port that is taken, naming it', async () => {
    const port = await busyPort();
    const { interaction } = recorded({ port });
    await expect(interaction.redirectUri()).rejects.toBeInstanceOf(AuthorizationError);
    await expect(interaction.redirectUri()).rejects.toThrow(
      new AuthorizationError(
        `Port ${port} on 127.0.0.1 is in use, so the sign-in redirect cannot be received there; free it or choose another port (0 picks a free one)`,
      ),
    );
  });

  it('listens on [::1] with host ::1 and on a configured path', async () => {
    const { interaction, whenOpened } = openedOnce({ host: '::1', path: '/oauth/done' });
    const uri = await interaction.redirectUri();
    expect(uri).toMatch(/^http:\/\/\[::1\]:\d+\/oauth\/done$/);
    const back = interaction.authorize(AUTHORIZE);
    await whenOpened;
    await fetch(`${uri}?code=c6`);
    expect((await back).href).toBe(`${uri}?code=c6`);
  });

  it('refuses bad options at once', () => {
    expect(() => loopbackInteraction({ path: 'callback' })).toThrow(/path "callback" must start with "\/"/);
    expect(() => loopbackInteraction({ port: 70_000 })).toThrow(
      /port 70000 is not an integer from 0 to 65535/,
    );
    expect(() => loopbackInteraction({ timeoutMs: 0 })).toThrow(/timeoutMs 0 must be positive/);
  });
});

describe('loopbackInteraction.authorize', () => {
  it('opens the URL, prints it, and resolves with the full URL of the redirect', async () => {
    const opened: URL[] = [];
    let signal!: () => void;
    const whenOpened = new Promise<void>((resolve) => {
      signal = resolve;
    });
    const lines: string[] = [];
    const interaction = loopbackInteraction({
      open: (url) => {
        opened.push(url);
        signal();
      },
      log: (line) => lines.push(line),
    });
    interactions.push(interaction);
    const uri = await interaction.redirectUri();
    const back = interaction.authorize(AUTHORIZE);
    await whenOpened;
    expect(opened.map((u) => u.href)).toEqual([AUTHORIZE.href]);
    expect(lines).toEqual([`Open this URL to sign in: ${AUTHORIZE.href}`]);

    const response = await fetch(`${uri}?code=abc&state=xyz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain('You can close this tab');
    expect((await back).href).toBe(`${uri}?code=abc&state=xyz`);
  });

  it('answers 404 to other paths and the favicon, and keeps waiting for the redirect', async () => {
    const { interaction, whenOpened } = openedOnce();
    const uri = new URL(await interaction.redirectUri());
    const back = interaction.authorize(AUTHORIZE);
    await whenOpened;
    expect((await fetch(new URL('/favicon.ico', uri))).status).toBe(404);
    expect((await fetch(new URL('/other?code=nope', uri))).status).toBe(404);
    expect((await fetch(uri, { method: 'POST', body: 'code=x' })).status).toBe(405);
    await fetch(`${uri.href}?code=right`);
    expect((await back).searchParams.get('code')).toBe('right');
  });

  it('answers a redirect carrying an OAuth error too, and resolves with it for the flow to judge', async () => {
    const { interaction, whenOpened } = openedOnce();
    const uri = await interaction.redirectUri();
    const back = interaction.authorize(AUTHORIZE);
    await whenOpened;
    const response = await fetch(`${uri}?error=access_denied&state=xyz`);
    expect(await response.text()).toContain('The authorization server answered: access_denied.');
    expect((await back).searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a request naming another host (DNS rebinding) and accepts localhost', async () => {
    const { interaction, whenOpened } = openedOnce();
    const uri = new URL(await interaction.redirectUri());
    const back = interaction.authorize(AUTHORIZE);
    await whenOpened;
    expect(await getWithHost(`${uri.href}?code=evil`, `evil.example:${uri.port}`)).toBe(403);
    expect(await getWithHost(`${uri.href}?code=ok`, `localhost:${uri.port}`)).toBe(200);
    expect((await back).searchParams.get('code')).toBe('ok');
  });

  it('prints the URL and still waits when the opener fails', async () => {
    const lines: string[] = [];
    let logged!: () => void;
    const whenLogged = new Promise<void>((resolve) => {
      logged = resolve;
    });
    const interaction = loopbackInteraction({
      open: async () => {
        throw new Error('xdg-open could not start: spawn xdg-open ENOENT');
      },
      log: (line) => {
        lines.push(line);
        if (lines.length === 2) logged();
      },
    });
    interactions.push(interaction);
    const uri = await interaction.redirectUri();
    const back = interaction.authorize(AUTHORIZE);
    await whenLogged;
    expect(lines).toEqual([
      `Open this URL to sign in: ${AUTHORIZE.href}`,
      'Could not open a browser (xdg-open could not start: spawn xdg-open ENOENT); open the URL above yourself.',
    ]);
    await fetch(`${uri}?code=by-hand`);
    expect((await back).searchParams.get('code')).toBe('by-hand');
  });

  it('rejects with an AuthorizationError when no redirect comes in time', async () => {
    const { interaction } = recorded({ timeoutMs: 50 });
    const uri = await interaction.redirectUri();
    const error = await interaction.authorize(AUTHORIZE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationError);
    expect(error).toMatchObject({
      code: 'GANTRY_ERR_AUTHORIZATION',
      message: `No sign-in came back to ${uri} within 50 ms; open the printed URL in a browser on this machine and sign in, then try again`,
    });
  });

  it('rejects when the signal aborts, and at once when it already has', async () => {
    const { interaction, whenOpened } = openedOnce();
    const uri = await interaction.redirectUri();
    const controller = new AbortController();
    const back = interaction.authorize(AUTHORIZE, controller.signal);
    await whenOpened;
    const reason = new Error('user pressed Ctrl-C');
    controller.abort(reason);
    await expect(back).rejects.toMatchObject({
      code: 'GANTRY_ERR_AUTHORIZATION',
      message: `Sign-in cancelled while waiting for the redirect to ${uri}`,
      cause: reason,
    });
    await expect(interaction.authorize(AUTHORIZE, controller.signal)).rejects.toBeInstanceOf(
      AuthorizationError,
    );
    // Nobody waits now: a late redirect is told so.
    expect((await fetch(`${uri}?code=late`)).status).toBe(404);
  });

  it('needs redirectUri first, and one sign-in at a time', async () => {
    const { interaction } = recorded();
    await expect(interaction.authorize(AUTHORIZE)).rejects.toThrow(
      /call redirectUri\(\) before authorize\(\)/,
    );
    await interaction.redirectUri();
    const first = interaction.authorize(AUTHORIZE);
    await expect(interaction.authorize(AUTHORIZE)).rejects.toThrow(/a sign-in is already waiting/);
    await interaction.close();
    await expect(first).rejects.toThrow(/The sign-in listener closed before the redirect came back/);
  });
});

describe('the default opener', () => {
  let bin: string;
  const savedPath = process.env.PATH;
  beforeEach(async () => {
    bin = await mkdtemp(join(tmpdir(), 'gantry-opener-'));
  });
  afterEach(async () => {
    process.env.PATH = savedPath;
    await rm(bin, { recursive: true, force: true });
  });

  it('starts the platform opener on the URL (here a stand-in browser that follows it)', async () => {
    // The stand-in `xdg-open` / `open` GETs its argument, as a browser redirected back would.
    const browser = `#!/bin/sh\nexec "${process.execPath}" -e 'fetch(process.argv[1]).then((r) => r.text())' "$1"\n`;
    for (const name of ['xdg-open', 'open']) {
      await writeFile(join(bin, name), browser);
      await chmod(join(bin, name), 0o755);
    }
    process.env.PATH = bin;
    const lines: string[] = [];
    const interaction = loopbackInteraction({ log: (line) => lines.push(line) });
    interactions.push(interaction);
    const uri = await interaction.redirectUri();
    const back = await interaction.authorize(new URL(`${uri}?code=from-browser`));
    expect(back.searchParams.get('code')).toBe('from-browser');
    expect(lines).toEqual([`Open this URL to sign in: ${uri}?code=from-browser`]);
  });

  it('says it could not open a browser when there is no opener, and keeps waiting', async () => {
    process.env.PATH = bin;
    let logged!: () => void;
    const whenLogged = new Promise<void>((resolve) => {
      logged = resolve;
    });
    const lines: string[] = [];
    const interaction = loopbackInteraction({
      log: (line) => {
        lines.push(line);
        if (lines.length === 2) logged();
      },
    });
    interactions.push(interaction);
    const uri = await interaction.redirectUri();
    const back = interaction.authorize(AUTHORIZE);
    await whenLogged;
    expect(lines[1]).toMatch(
      /^Could not open a browser \((xdg-)?open could not start: spawn (xdg-)?open ENOENT\); open the URL above yourself\.$/,
    );
    await fetch(`${uri}?code=by-hand`);
    expect((await back).searchParams.get('code')).toBe('by-hand');
  });
});

describe('loopbackInteraction.close', () => {
  it('stops the listener, and is safe to call twice', async () => {
    const { interaction } = recorded();
    const uri = await interaction.redirectUri();
    await interaction.close();
    await interaction.close();
    await expect(fetch(uri)).rejects.toThrow();
    // A closed interaction can start again.
    expect(await interaction.redirectUri()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  });

  it('is safe before any listener started', async () => {
    await loopbackInteraction().close();
  });
});
