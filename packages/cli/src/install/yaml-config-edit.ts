import { type Document, isMap, isScalar, parseDocument, type Scalar } from 'yaml';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import type { ConfigEdit } from './json-config-edit';

/**
 * Sets `servers[name] = entry` in YAML text, where `servers` is the map at `serversKey`
 * (created when missing or empty). The file is edited as a YAML document (the `yaml`
 * package), so comments, key order and the style of scalars are kept; the new entry goes last.
 */
export function setYamlEntry(options: {
  text: string | undefined;
  file: string;
  serversKey: readonly string[];
  name: string;
  entry: unknown;
}): ConfigEdit {
  const { text = '', file, serversKey, name, entry } = options;
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    const [error] = document.errors;
    const at = error.linePos ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}` : '';
    throw new CliError(
      `${file} is not valid YAML (${error.code}${at}); fix it, or move it away to start a new one, and run gantry install again`,
      ExitCode.Usage,
    );
  }
  const contents = document.contents;
  if (contents !== null && !isMap(contents) && !(isScalar(contents) && contents.value === null)) {
    throw new CliError(
      `${file} does not hold a YAML mapping at its top; fix it, or move it away`,
      ExitCode.Usage,
    );
  }
  // A file of comments only, or a bare null: setIn below makes the top-level mapping.
  if (isScalar(contents)) document.contents = null;

  const servers = document.getIn(serversKey, true);
  let existing: unknown;
  if (servers === undefined || (isScalar(servers) && servers.value === null)) {
    // `extensions: # a comment` has the comment on its null value; on the key it stays inline.
    const key = isScalar(servers) && servers.comment ? keyScalarOf(document, serversKey) : undefined;
    if (key !== undefined) key.comment = (servers as Scalar).comment;
    document.setIn(serversKey, document.createNode({ [name]: entry }));
  } else if (isMap(servers)) {
    if (servers.has(name)) existing = (servers.toJSON() as Record<string, unknown>)[name];
    servers.set(name, document.createNode(entry));
  } else {
    throw new CliError(
      `${file}: "${serversKey.join('.')}" is not a mapping of names to entries; fix it, or move the file away`,
      ExitCode.Usage,
    );
  }
  return {
    existing,
    text: document.toString({
      // Keep the file's list style: serde_yaml (which Goose writes with) puts "- x" at the
      // indentation of its key, the yaml package indents it unless told not to.
      indentSeq: !/^( *)[^\s#-][^\n]*:\r?\n\1- /m.test(text),
      // Never fold long strings (paths, URLs) onto several lines.
      lineWidth: 0,
    }),
  };
}

/** The key scalar of the pair at `path`, which can carry a comment; undefined when it is not one. */
function keyScalarOf(document: Document, path: readonly string[]): Scalar | undefined {
  const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  const key = parent.items.find(
    (item) => isScalar(item.key) && item.key.value === path[path.length - 1],
  )?.key;
  return isScalar(key) ? key : undefined;
}
