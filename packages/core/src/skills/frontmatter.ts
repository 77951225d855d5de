// SKILL.md = YAML frontmatter between `---` lines, then the markdown body (Agent Skills format,
// which SEP-2640 adopts). The frontmatter is parsed with the `yaml` package (YAML 1.2, core
// schema: the typing the SDK client's own reader uses, so both read a file the same way).
import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { parse, YAMLParseError } from 'yaml';
import type { SkillFrontmatter } from './skill-types';

/** Agent Skills: 1-64 lowercase letters, digits and single hyphens. */
const NAME = /^[\da-z]+(?:-[\da-z]+)*$/;

const characters = (text: string) => [...text].length;

function fail(file: string, problem: string): never {
  throw new GantryError(LocalErrorCode.Bootstrap, `Skill ${file}: ${problem}`);
}

/** True for JSON values only (no NaN/Infinity, no undefined, plain objects and arrays). */
function isJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value as object).every(isJson);
  }
  return false;
}

/** Splits SKILL.md into its frontmatter YAML and body; `file` names it in errors. */
export function splitSkillMarkdown(markdown: string, file: string): { yaml: string; body: string } {
  let text = markdown.replaceAll('\r\n', '\n');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text.startsWith('---\n')) fail(file, 'must begin with a "---" line opening the YAML frontmatter');
  const rest = text.slice(4);
  const close = /^---[\t ]*$/m.exec(rest);
  if (!close) fail(file, 'the frontmatter has no closing "---" line');
  let body = rest.slice(close.index + close[0].length);
  if (body.startsWith('\n')) body = body.slice(1);
  return { yaml: rest.slice(0, close.index), body };
}

/**
 * Parses and checks SKILL.md's frontmatter: a mapping with `name` (equal to `dirName`, the last
 * segment of the skill's path) and `description`, plus the optional fields Agent Skills types
 * (`compatibility`, `metadata`). Returns it verbatim as JSON; throws a bootstrap error naming
 * `file` and the problem.
 */
export function parseFrontmatter(markdown: string, dirName: string, file: string): SkillFrontmatter {
  const { yaml } = splitSkillMarkdown(markdown, file);
  let value: unknown;
  try {
    value = parse(yaml, { schema: 'core', uniqueKeys: true, strict: true, maxAliasCount: 0 });
  } catch (error) {
    const reason = error instanceof YAMLParseError ? error.message.split('\n')[0] : String(error);
    fail(file, `the frontmatter is not valid YAML: ${reason}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(file, 'the frontmatter must be a mapping with at least name and description');
  }
  if (!isJson(value)) {
    fail(file, 'the frontmatter holds a value JSON cannot represent (e.g. .inf or .nan); quote it');
  }
  const frontmatter = value as Record<string, unknown>;
  checkFrontmatter(frontmatter, dirName, file);
  return frontmatter as SkillFrontmatter;
}

/** The rules a host checks on each entry (SEP-2640 with Agent Skills' field rules). */
export function checkFrontmatter(frontmatter: Record<string, unknown>, dirName: string, file: string): void {
  const { name, description, compatibility, metadata } = frontmatter;
  if (typeof name !== 'string' || name.length === 0 || name.length > 64 || !NAME.test(name)) {
    fail(file, `name must be 1-64 lowercase letters, digits and single hyphens, got ${JSON.stringify(name)}`);
  }
  if (name !== dirName) {
    fail(
      file,
      `name "${name}" must equal the skill's directory name "${dirName}" (the last segment of its path)`,
    );
  }
  if (typeof description !== 'string' || description === '' || characters(description) > 1024) {
    fail(file, 'description must be a string of 1-1024 characters');
  }
  if (
    compatibility !== undefined &&
    (typeof compatibility !== 'string' || compatibility === '' || characters(compatibility) > 500)
  ) {
    fail(file, 'compatibility must be a string of 1-500 characters');
  }
  if (
    metadata !== undefined &&
    (typeof metadata !== 'object' ||
      metadata === null ||
      Array.isArray(metadata) ||
      !Object.values(metadata).every((v) => typeof v === 'string'))
  ) {
    fail(file, 'metadata must map strings to strings');
  }
}
