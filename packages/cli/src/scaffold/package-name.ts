import { builtinModules } from 'node:module';

/** Names npm refuses besides the rules below (validate-npm-package-name's blocklist). */
const BLOCKED_NAMES = new Set(['node_modules', 'favicon.ico']);

/**
 * Why `name` cannot be the name of a new npm package, or `undefined` when it can. The rules
 * are those of `validate-npm-package-name`, which npm applies to new packages.
 */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'npm package names must not be empty';
  if (name.trim() !== name) return 'npm package names must not start or end with spaces';
  if (name.length > 214) return 'npm package names must be at most 214 characters long';
  if (name.startsWith('.') || name.startsWith('_')) return "npm package names must not start with '.' or '_'";
  if (name !== name.toLowerCase()) return 'npm package names must not contain capital letters';
  if (/[~'!()*]/.test(name)) return "npm package names must not contain any of ~ ' ! ( ) *";
  const scoped = /^@([^/]+)\/([^/]+)$/.exec(name);
  if (name.startsWith('@') && !scoped) return 'scoped npm package names have the form @scope/name';
  for (const part of scoped ? [scoped[1], scoped[2]] : [name]) {
    if (encodeURIComponent(part) !== part) {
      return 'npm package names must contain only URL-safe characters (letters, digits, - . _)';
    }
  }
  if (BLOCKED_NAMES.has(name)) return `npm reserves the name "${name}"`;
  if (builtinModules.includes(name)) return 'npm package names must not be the name of a Node.js core module';
  return undefined;
}

/** A valid package name made from `text` (a directory name, say): `My Server!` → `my-server`. */
export function toPackageName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '')
    .slice(0, 214);
  return name && packageNameProblem(name) === undefined ? name : 'mcp-server';
}

/** The part of a package name after its scope: `@acme/weather` → `weather`. */
export function unscopedName(name: string): string {
  return name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
}
