// A Gantry server with an MCP Apps view (MCP Apps 2026-01-26, SEP-1865): the tool
// `search_notes` names the UI resource `ui://notes/board` in its `_meta.ui.resourceUri`, the
// resource is an HTML document (`text/html;profile=mcp-app`) that renders the tool's
// structuredContent, and the view calls the app-only tool `move_note` back through its host.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Args, GantryFactory, Injectable, Module, Resource, Tool } from '@gantry/core';
import { IsIn, IsOptional, IsString } from 'class-validator';

/** The view's URI and MIME type (MCP Apps 2026-01-26, "UI Resource Format"). */
export const BOARD_URI = 'ui://notes/board';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

export interface Note {
  readonly id: string;
  readonly title: string;
  readonly column: 'todo' | 'done';
}

const NOTES: readonly Note[] = [
  { id: 'n1', title: 'Write the release notes', column: 'todo' },
  { id: 'n2', title: 'Review the HTTP listener', column: 'todo' },
  { id: 'n3', title: 'Ship the browser test', column: 'todo' },
];

/** What `move_note` was asked to do, in order: the test reads it to see the view's call arrive. */
@Injectable()
export class BoardJournal {
  readonly moves: { id: string; column: string }[] = [];
  archived = false;
}

class SearchNotes {
  @IsOptional() @IsString() query?: string;
}

class MoveNote {
  @IsString() id!: string;
  @IsIn(['todo', 'done']) column!: 'todo' | 'done';
}

@Injectable()
class NotesBoardTools {
  constructor(private readonly journal: BoardJournal) {}

  /**
   * Model-visible, with a view. Both spellings of the resource URI: the nested `ui.resourceUri`
   * and the deprecated flat `ui/resourceUri` that older hosts read (MCP Apps 2026-01-26,
   * "Resource Discovery").
   */
  @Tool({
    description: 'Searches the notes; hosts with MCP Apps show them on a board',
    _meta: { ui: { resourceUri: BOARD_URI }, 'ui/resourceUri': BOARD_URI },
  })
  searchNotes(@Args() args: SearchNotes) {
    const query = args.query?.toLowerCase() ?? '';
    const notes = NOTES.filter((note) => note.title.toLowerCase().includes(query));
    return {
      content: [{ type: 'text', text: notes.map((note) => `${note.id}: ${note.title}`).join('\n') }],
      structuredContent: { notes },
    };
  }

  /** Only the view may call it (`visibility: ['app']`): hosts keep it out of the model's list. */
  @Tool({
    description: 'Moves a note to another column (called by the board view)',
    _meta: { ui: { visibility: ['app'] } },
  })
  moveNote(@Args() args: MoveNote) {
    this.journal.moves.push({ id: args.id, column: args.column });
    return `Moved ${args.id} to ${args.column}`;
  }

  /** Only the model may call it (`visibility: ['model']`): hosts refuse it to the view. */
  @Tool({
    description: 'Archives every note',
    _meta: { ui: { visibility: ['model'] } },
  })
  archiveNotes() {
    this.journal.archived = true;
    return 'Archived every note';
  }
}

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

/** The view's own code: renders `structuredContent.notes`, and each button calls `move_note`. */
const VIEW_SCRIPT = `
const { App, PostMessageTransport } = extApps;
const list = document.getElementById('notes');
const status = document.getElementById('status');
const app = new App({ name: 'notes-board', version: '1.0.0' });

function render(notes) {
  list.replaceChildren(...notes.map((note) => {
    const item = document.createElement('li');
    item.dataset.id = note.id;
    item.dataset.column = note.column;
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = note.title;
    const button = document.createElement('button');
    button.textContent = 'Move to done';
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const result = await app.callServerTool({ name: 'move_note', arguments: { id: note.id, column: 'done' } });
        status.textContent = result.content[0].text;
        if (!result.isError) item.dataset.column = 'done';
      } catch (error) {
        status.textContent = 'move_note failed: ' + error.message;
      }
    });
    item.append(title, ' ', button);
    return item;
  }));
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
  ul { list-style: none; padding: 0; }
  li { display: flex; gap: 8px; align-items: center; padding: 6px 8px; margin: 4px 0; border: 1px solid #ccc; border-radius: 6px; }
  li[data-column="done"] .title { text-decoration: line-through; color: #777; }
</style>
</head>
<body>
<h1>Notes</h1>
<p id="status">Loading</p>
<ul id="notes"></ul>
<script type="module">
${extApps}
${VIEW_SCRIPT}
</script>
</body>
</html>
`;
}

@Injectable()
class NotesBoardView {
  private readonly html = boardHtml(
    inlineExtApps(readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8')),
  );

  @Resource({ uri: BOARD_URI, name: 'notes-board', mimeType: APP_MIME_TYPE })
  board() {
    return this.html;
  }
}

@Module({ providers: [BoardJournal, NotesBoardTools, NotesBoardView] })
class NotesBoardModule {}

/** The app; listen on it with `http()`. */
export function createNotesBoardApp() {
  return GantryFactory.create(NotesBoardModule, { name: 'notes-board', version: '1.0.0', logger: false });
}
