// A real browser runs an MCP Apps view served by Gantry (MCP Apps 2026-01-26, SEP-1865).
// Gantry serves apps/notes (its board view, ui://notes/board) over Streamable HTTP with the
// `http()` listener; a test host
// page (host.js, bundled here with esbuild) runs in Debian's Chromium, driven by playwright-core:
// it reads the tool's `ui://` resource, renders it in a sandboxed srcdoc iframe, bridges it with
// ext-apps' AppBridge and delivers the tool result. The view renders the notes, a click calls the
// app-only tool `move_note` through the bridge, and the notes store shows the move; the host
// refuses the view the model-only `delete_note`, as MCP Apps requires.
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type GantryApplication, GantryFactory } from '@gantry/core';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { AppModule } from '../../../../apps/notes/src/app.module';
import { BOARD_URI } from '../../../../apps/notes/src/board/notes-board.view';
import { NotesRepository } from '../../../../apps/notes/src/notes.repository';
import { http } from '../../src';
import { bundleHost, type HostPage, serveHostPage } from './host-page';

/** The notes on the board, newest first as search_notes lists them (created in reverse). */
const TITLES = ['Write the release notes', 'Review the HTTP listener', 'Ship the browser test'];

/** Debian's package (`apt-get install chromium`); `npm test` installs it when missing (scripts/ensure-system-packages.js). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RESULTS = resolve(__dirname, '../../../../test-results');
const WAIT_MS = 10_000;

/** One entry of `window.hostEvents` (host.js). */
interface HostEvent {
  type: string;
  protocolVersion?: string;
  tools?: { name: string; _meta?: unknown }[];
  uri?: string;
  app?: unknown;
  name?: string;
  arguments?: unknown;
}

describe('an MCP Apps view served by Gantry, in Chromium', () => {
  let tempDir: string;
  let host: HostPage;
  let app: GantryApplication;
  let endpoint: string;
  let notesStore: NotesRepository;
  /** The ids of TITLES, in order. */
  let ids: string[];
  let browser: Browser;
  let page: Page;
  const browserLog: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `No Chromium at ${CHROMIUM}: this test drives a real browser. Install Debian's package ` +
          '(`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM_PATH to a Chromium binary.',
      );
    }
    tempDir = await mkdtemp(join(tmpdir(), 'gantry-apps-view-'));
    host = await serveHostPage(await bundleHost(tempDir));
    process.env.NOTES_DIR = join(tempDir, 'notes');
    app = await GantryFactory.create(AppModule, { name: 'gantry-notes', version: '1.0.0', logger: false });
    notesStore = app.get(NotesRepository);
    ids = [];
    for (const title of [...TITLES].reverse()) ids.unshift((await notesStore.create({ title, body: '' })).id);
    const listener = http({ port: 0, cors: { origins: [host.origin] } });
    await app.listen(listener);
    endpoint = listener.url as string;
    // Root (as in CI) needs --no-sandbox: Chromium refuses to run its own sandbox as root.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 25_000);

  // A fresh page (and so a fresh client, session and view) per test.
  beforeEach(async () => {
    browserLog.length = 0;
    for (const id of ids) await notesStore.setStatus(id, 'todo');
    page = await browser.newPage({ viewport: { width: 640, height: 480 } });
    page.on('console', (message) => browserLog.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => browserLog.push(`page error: ${error.message}`));
  });

  afterEach(async () => {
    await page?.close();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await host?.close();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });

  /** What the host page recorded and the browser logged, for a failure message. */
  async function diagnostics(): Promise<string> {
    const events = await page.evaluate('window.hostEvents').catch(() => undefined);
    return `host events: ${JSON.stringify(events)}\nbrowser log:\n${browserLog.slice(-30).join('\n')}`;
  }

  async function step<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw new Error(`${what}: ${(error as Error).message}\n${await diagnostics()}`);
    }
  }

  /** Waits for `target`, but gives up as soon as the host page reports an error. */
  async function unlessHostFails(target: Locator): Promise<void> {
    const hostError = page.locator('#error').filter({ hasText: /\S/ });
    const failed = hostError.waitFor({ timeout: WAIT_MS }).then(
      async () => {
        throw new Error(`the host page failed: ${await hostError.textContent()}`);
      },
      // No error within the wait: never settle, so the race is target's to win or time out.
      () => new Promise<never>(() => {}),
    );
    await Promise.race([target.waitFor({ state: 'visible', timeout: WAIT_MS }), failed]);
  }

  /** Opens the host page on search_notes and waits until the view shows the notes. */
  async function openBoard(era: 'legacy' | 'pin') {
    const query = new URLSearchParams({ mcp: endpoint, tool: 'search_notes', query: '', era });
    await page.goto(`${host.origin}/?${query}`);
    const view = page.frameLocator('iframe#view');
    const notes = view.locator('#todo li');
    await step('the view never rendered the notes', () => unlessHostFails(notes.nth(2)));
    return { view, notes };
  }

  it.each([
    ['the 2025-11-25 session era', 'legacy' as const, '2025-11-25', 1],
    ['the 2026-07-28 stateless era', 'pin' as const, '2026-07-28', 2],
  ])(
    'in %s, renders the tool result in the sandboxed view and carries its move_note call to the server',
    async (_era, era, protocolVersion, row) => {
      const moved = ids[row];
      const { view, notes } = await openBoard(era);
      expect(await notes.locator('.title').allTextContents()).toEqual(TITLES);
      expect(await view.locator('#status').textContent()).toBe('3 notes');

      // What the browser's client saw: the era, both spellings of the view's URI on search_notes,
      // move_note marked app-only and delete_note model-only.
      const events = await page.evaluate<HostEvent[]>('window.hostEvents');
      expect(events.map((event) => event.type)).toEqual([
        'connected',
        'tools',
        'resource',
        'initialized',
        'tool-result-sent',
      ]);
      expect(events[0].protocolVersion).toBe(protocolVersion);
      const meta = Object.fromEntries((events[1].tools ?? []).map((tool) => [tool.name, tool._meta]));
      expect(meta).toMatchObject({
        search_notes: { ui: { resourceUri: BOARD_URI }, 'ui/resourceUri': BOARD_URI },
        move_note: { ui: { resourceUri: BOARD_URI, visibility: ['app'] } },
        delete_note: { ui: { resourceUri: BOARD_URI, visibility: ['model'] } },
      });
      expect(events[2].uri).toBe(BOARD_URI);
      expect(events[3].app).toEqual({ name: 'notes-board', version: '1.0.0' });

      // The iframe is sandboxed without allow-same-origin: the view's document has an opaque
      // origin and cannot reach the host page.
      expect(await page.locator('iframe#view').getAttribute('sandbox')).toBe('allow-scripts');
      const viewFrame = page.frames().find((frame) => frame !== page.mainFrame());
      expect(await viewFrame?.evaluate('window.origin')).toBe('null');
      // The view ran under the default CSP of MCP Apps (host.js puts it first in the head), with
      // ext-apps inlined: no violation, no error in the browser's console.
      expect(
        await view.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'),
      ).toContain("script-src 'self' 'unsafe-inline'");
      expect(browserLog.filter((line) => line.startsWith('error') || line.startsWith('page error'))).toEqual(
        [],
      );

      expect((await notesStore.get(moved))?.status).toBe('todo');
      await notes.nth(row).getByRole('button', { name: 'Move to done' }).click();
      await step('the view never showed the answer of move_note', () =>
        view.locator('#status', { hasText: `Moved ${moved} to done` }).waitFor({ timeout: WAIT_MS }),
      );
      expect((await notesStore.get(moved))?.status).toBe('done');
      // It went through the host's bridge, not around it.
      const calls = await page.evaluate<HostEvent[]>('window.hostEvents');
      expect(calls.slice(5)).toEqual([
        { type: 'app-call', name: 'move_note', arguments: { id: moved, status: 'done' } },
      ]);
      // The card moved to the Done column; the others stayed.
      expect(await view.locator('#done li').getAttribute('data-id')).toBe(moved);
      expect(await view.locator('#done li').getAttribute('data-status')).toBe('done');
      expect(await notes.locator('.title').allTextContents()).toEqual(TITLES.filter((_, i) => i !== row));

      await mkdir(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, `apps-view-${protocolVersion}.png`) });
    },
  );

  it('refuses the view a tool whose visibility lacks "app", so the server never sees the call', async () => {
    await openBoard('legacy');
    const viewFrame = page.frames().find((frame) => frame !== page.mainFrame());
    // A view that sends tools/call for the model-only delete_note itself, past its App.
    const answer = await viewFrame?.evaluate(`new Promise((resolve) => {
      addEventListener('message', (event) => { if (event.data && event.data.id === 'probe') resolve(event.data); });
      parent.postMessage({ jsonrpc: '2.0', id: 'probe', method: 'tools/call',
        params: { name: 'delete_note', arguments: { id: '${ids[0]}' } } }, '*');
    })`);
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 'probe',
      error: { message: expect.stringContaining('The view may not call delete_note') },
    });
    const events = await page.evaluate<HostEvent[]>('window.hostEvents');
    expect(events.slice(5)).toEqual([{ type: 'app-call-refused', name: 'delete_note' }]);
    expect(await notesStore.get(ids[0])).toBeDefined();
  });
});
