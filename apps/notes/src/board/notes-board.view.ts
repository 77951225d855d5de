// The notes board: an MCP Apps view (MCP Apps 2026-01-26, SEP-1865) of `search_notes`. The
// tool names `ui://notes/board` (`@Tool({ ui })`); this resource is one HTML document
// (`text/html;profile=mcp-app`) that renders the tool's structuredContent as three columns, and
// its buttons call the app-only tool `move_note` back through the host. No build step: plain
// HTML, with the ext-apps `App` client from the npm package inlined.
import { readFileSync } from 'node:fs';
import { Injectable, UiResource } from '@gantry/core';

/** The view's URI. */
export const BOARD_URI = 'ui://notes/board';

/**
 * Turns ext-apps' self-contained ES module (`app-with-deps.js`) into a script that can share one
 * inline `<script type="module">` with the view's code: its closing `export{local as Name, …}`
 * becomes `const extApps = { Name: local, … }`. Inline, because a `srcdoc` view has no base URL
 * to import from and the default view CSP (`script-src 'self' 'unsafe-inline'`) allows no
 * `data:` or `blob:` modules.
 */
export function inlineExtApps(source: string): string {
  const match = /export\s*\{([^}]*)\};?\s*$/.exec(source);
  if (!match) {
    throw new Error(
      'app-with-deps.js does not end with an export clause; the @modelcontextprotocol/ext-apps version changed its bundle format',
    );
  }
  const entries = match[1]
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [local, exported = local] = part.split(/\s+as\s+/);
      return `${JSON.stringify(exported)}:${local}`;
    });
  if (source.includes('</script')) {
    throw new Error('app-with-deps.js contains "</script": it cannot be inlined into an HTML script');
  }
  return `${source.slice(0, match.index)}\nconst extApps = {${entries.join(',')}};\n`;
}

/** The view's own code: renders `structuredContent.notes` in columns; buttons call `move_note`. */
const VIEW_SCRIPT = `
const { App, PostMessageTransport } = extApps;
const status = document.getElementById('status');
const columns = { todo: document.getElementById('todo'), doing: document.getElementById('doing'), done: document.getElementById('done') };
const app = new App({ name: 'notes-board', version: '1.0.0' });

function card(note) {
  const item = document.createElement('li');
  item.dataset.id = note.id;
  item.dataset.status = note.status;
  const title = document.createElement('span');
  title.className = 'title';
  title.textContent = note.title;
  item.append(title);
  for (const target of ['todo', 'doing', 'done']) {
    if (target === note.status) continue;
    const button = document.createElement('button');
    button.textContent = 'Move to ' + target;
    button.dataset.target = target;
    button.addEventListener('click', async () => {
      for (const other of item.querySelectorAll('button')) other.disabled = true;
      try {
        const result = await app.callServerTool({ name: 'move_note', arguments: { id: note.id, status: target } });
        status.textContent = result.content[0].text;
        if (!result.isError) {
          const moved = result.structuredContent && result.structuredContent.note;
          columns[target].append(card(moved ?? { ...note, status: target }));
          item.remove();
        }
      } catch (error) {
        status.textContent = 'move_note failed: ' + error.message;
      }
    });
    item.append(' ', button);
  }
  return item;
}

function render(notes) {
  for (const column of Object.values(columns)) column.replaceChildren();
  for (const note of notes) (columns[note.status] ?? columns.todo).append(card(note));
  status.textContent = notes.length + ' notes';
}

// Handlers before connect(): the host may send the result right after the handshake.
app.ontoolresult = (result) => {
  const notes = result.structuredContent && result.structuredContent.notes;
  if (Array.isArray(notes)) render(notes);
  else status.textContent = 'The tool result has no structuredContent.notes';
};
await app.connect(new PostMessageTransport(window.parent, window.parent));
status.textContent = 'Connected; waiting for the tool result';
`;

/** The HTML document of the view, with ext-apps inlined. */
export function boardHtml(extApps: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Notes board</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 12px; }
  main { display: grid; grid-template-columns: repeat(3, 1fr); gap: 12px; }
  ul { list-style: none; padding: 0; min-height: 2em; }
  li { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 6px 8px; margin: 4px 0; border: 1px solid #ccc; border-radius: 6px; }
  li[data-status="done"] .title { text-decoration: line-through; color: #777; }
</style>
</head>
<body>
<h1>Notes</h1>
<p id="status">Loading</p>
<main>
  <section><h2>To do</h2><ul id="todo"></ul></section>
  <section><h2>Doing</h2><ul id="doing"></ul></section>
  <section><h2>Done</h2><ul id="done"></ul></section>
</main>
<script type="module">
${extApps}
${VIEW_SCRIPT}
</script>
</body>
</html>
`;
}

@Injectable()
export class NotesBoardView {
  private readonly html = boardHtml(
    inlineExtApps(readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8')),
  );

  @UiResource({
    uri: BOARD_URI,
    name: 'notes-board',
    description: 'The notes as a board: todo, doing, done',
    prefersBorder: true,
  })
  board(): string {
    return this.html;
  }
}
