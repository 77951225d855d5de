import { addImport, applyEdits, type Edit, importsClass } from './module-editor';
import { maskSource } from './source-mask';

/** What `gantry add` puts into main.ts for one transport. */
export interface TransportBranch {
  /** The command-line flag that chooses the transport (`--http`). */
  flag: string;
  /** The function that serves the app on it (`serveHttp`), imported from `importPath`. */
  functionName: string;
  importPath: string;
}

/** Result of {@link addTransportBranch}: the new text, or why main.ts was left alone. */
export type MainEdit = { ok: true; text: string } | { ok: false; reason: string };

/** `await app.listen(` at the start of a line: the statement that starts the default transport. */
const LISTEN_STATEMENT = /^([ \t]*)(?:await[ \t]+)?([A-Za-z_$][\w$]*)[ \t]*\.[ \t]*listen[ \t]*\(/gm;

/** The line `gantry add` inserts, without its indentation. */
export function branchLine(branch: TransportBranch, app: string): string {
  return `if (process.argv.includes('${branch.flag}')) return ${branch.functionName}(${app});`;
}

/** Whether the code before `index` has an open `{` that is a function's body (so `return` is allowed there). */
function insideFunction(masked: string, index: number): boolean {
  const open: number[] = [];
  for (let i = 0; i < index; i++) {
    if (masked[i] === '{') open.push(i);
    else if (masked[i] === '}') open.pop();
  }
  return open.some((brace) => {
    // The head of the block: from the end of the previous statement or block to its `{`.
    const head = masked.slice(0, brace);
    const start = Math.max(head.lastIndexOf(';'), head.lastIndexOf('{'), head.lastIndexOf('}')) + 1;
    return /\bfunction\b|=>/.test(head.slice(start));
  });
}

/** Where the statement at `lineStart` begins once the comment lines right above it are counted in. */
function aboveComments(source: string, lineStart: number): number {
  let start = lineStart;
  while (start > 0) {
    const previous = source.lastIndexOf('\n', start - 2) + 1;
    if (!source.slice(previous, start).trimStart().startsWith('//')) break;
    start = previous;
  }
  return start;
}

/** The one `app.listen(...)` statement of main.ts: where its line starts, its indentation and the app's name. */
function listenStatement(
  source: string,
  masked: string,
): { lineStart: number; indent: string; app: string } | string {
  const calls = [...masked.matchAll(/\.\s*listen\s*\(/g)].length;
  if (calls === 0) return 'it has no app.listen(...) call';
  if (calls > 1)
    return `it has ${calls} .listen(...) calls, and which one is the default transport is yours to say`;
  const statements = [...masked.matchAll(LISTEN_STATEMENT)];
  if (statements.length !== 1) return 'its app.listen(...) call does not start a line of its own';
  const [match] = statements;
  if (!insideFunction(masked, match.index)) {
    return 'its app.listen(...) is not inside a function, where a return could choose another transport';
  }
  return { lineStart: aboveComments(source, match.index), indent: match[1], app: match[2] };
}

/**
 * Adds a transport to main.ts: `if (process.argv.includes('--http')) return serveHttp(app);`
 * on the line before the one `app.listen(...)` statement (above the comments that lead into
 * it), and the import of the serving function after the last import. So the transport main.ts
 * served stays the default, and the flag chooses the new one. It is a text edit that keeps the
 * file's layout, checked by reading the result again: taking the two inserted lines out must
 * give the original file. Anything it cannot edit safely is reported with a reason instead.
 */
export function addTransportBranch(source: string, branch: TransportBranch): MainEdit {
  const masked = maskSource(source);
  if (importsClass(source, masked, branch.functionName)) {
    return { ok: false, reason: `it imports ${branch.functionName} already` };
  }
  if (source.includes(`'${branch.flag}'`) || source.includes(`"${branch.flag}"`)) {
    return { ok: false, reason: `it handles ${branch.flag} already` };
  }
  const statement = listenStatement(source, masked);
  if (typeof statement === 'string') return { ok: false, reason: statement };
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const line = `${statement.indent}${branchLine(branch, statement.app)}${eol}`;
  const edits: Edit[] = [
    ...addImport(masked, branch.functionName, branch.importPath, eol),
    { start: statement.lineStart, end: statement.lineStart, text: line },
  ];
  const text = applyEdits(source, edits);
  const problem = verify(source, text, edits, branch, statement.app);
  return problem ? { ok: false, reason: problem } : { ok: true, text };
}

/** Why `text` is not `source` with exactly the two lines added, or undefined when it is. */
function verify(
  source: string,
  text: string,
  edits: readonly Edit[],
  branch: TransportBranch,
  app: string,
): string | undefined {
  let rest = text;
  for (const edit of edits) rest = rest.replace(edit.text, '');
  if (rest !== source) return 'the edit changed more than the two lines it adds';
  const masked = maskSource(text);
  if (!importsClass(text, masked, branch.functionName)) return 'the edit did not give the import';
  const after = listenStatement(text, masked);
  const branchAt = text.indexOf(branchLine(branch, app));
  if (
    typeof after === 'string' ||
    branchAt === -1 ||
    !masked.startsWith('if', branchAt) ||
    branchAt > after.lineStart
  ) {
    return 'the edited file could not be read back with the branch before app.listen(...)';
  }
  return undefined;
}
