// Loading a view's HTML at bootstrap: a string, an .html file, or a build output directory whose
// index.html gets its local scripts and stylesheets inlined. A host loads the view from the
// text of `resources/read` (e.g. as an iframe `srcdoc`), where relative URLs resolve nowhere, so
// everything local must be in the one document (MCP Apps 2026-01-26 › UI Resource).
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** True when `html` starts like an HTML5 document (after a BOM, spaces and comments). */
export function looksLikeHtmlDocument(html: string): boolean {
  const start = html.replace(/^\uFEFF?(?:\s|<!--[\s\S]*?-->)*/, '');
  return /^<!doctype html[\s>]/i.test(start) || /^<html[\s>]/i.test(start);
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`${what} ${path} cannot be read (${code ?? (error as Error).message})`);
  }
}

/** Reads an .html file (a relative path resolves against the working directory). */
export function loadHtmlFile(file: string): string {
  const path = resolve(file);
  return readText(path, 'the file');
}

/** A URL that points into the build: no scheme, no `//host`, not a data URL. */
function isLocal(url: string): boolean {
  return !/^(?:[A-Za-z][A-Za-z0-9+.-]*:|\/\/)/.test(url);
}

/** The file a local URL names inside `root`; throws when it leaves it. */
function localFile(root: string, url: string, what: string): string {
  const clean = decodeURIComponent(url.replace(/[?#].*$/, ''));
  // `/assets/x.js` (a bundler's default base '/') is relative to the build's root too.
  const path = resolve(root, clean.replace(/^\/+/, ''));
  const inside = relative(root, path);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new Error(`${what} ${JSON.stringify(url)} points outside the directory ${root}`);
  }
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new Error(`${what} ${JSON.stringify(url)} names ${path}, which does not exist`);
  }
  const realRoot = realpathSync(root);
  if (relative(realRoot, real).startsWith('..')) {
    throw new Error(`${what} ${JSON.stringify(url)} is a link to ${real}, outside the directory ${root}`);
  }
  return real;
}

const attribute = (tag: string, name: string): string | undefined =>
  new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i')
    .exec(tag)
    ?.slice(1)
    .find((value) => value !== undefined);

/** `</script` or `</style` inside inlined code would end the element early. */
const escapeEnd = (code: string, element: 'script' | 'style'): string =>
  code.replace(new RegExp(`</(${element})`, 'gi'), '<\\/$1');

/**
 * Reads `directory/index.html` and inlines what it loads from the directory: each
 * `<script src>` becomes a `<script>` with the file's code (keeping `type`), each
 * `<link rel="stylesheet" href>` a `<style>`; `<link rel="modulepreload">` of local files is
 * dropped (the code is inline). Remote URLs stay as they are (declare them in `csp`).
 */
export function loadHtmlDirectory(directory: string): string {
  const root = resolve(directory);
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(root);
  } catch {
    throw new Error(`the directory ${root} does not exist`);
  }
  if (!stats.isDirectory()) throw new Error(`${root} is not a directory`);
  const index = readText(resolve(root, 'index.html'), 'its index.html,');
  const scripts = index.replace(/<script\b([^>]*)>\s*<\/script\s*>/gi, (tag: string) => {
    const src = attribute(tag, 'src');
    if (src === undefined || !isLocal(src)) return tag;
    const code = readText(localFile(root, src, '<script src>'), 'the script');
    const type = attribute(tag, 'type');
    return `<script${type ? ` type="${type}"` : ''}>${escapeEnd(code, 'script')}</script>`;
  });
  return scripts.replace(/<link\b[^>]*>/gi, (tag: string) => {
    const rel = attribute(tag, 'rel')?.toLowerCase().split(/\s+/) ?? [];
    const href = attribute(tag, 'href');
    if (href === undefined || !isLocal(href)) return tag;
    if (rel.includes('modulepreload')) return '';
    if (!rel.includes('stylesheet')) return tag;
    const css = readText(localFile(root, href, '<link rel="stylesheet" href>'), 'the stylesheet');
    return `<style>${escapeEnd(css, 'style')}</style>`;
  });
}
