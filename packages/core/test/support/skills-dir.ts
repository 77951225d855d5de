// A temporary skills folder for the skills specs: two skills on disk (one with a binary file and
// a nested directory) that the tests read back byte for byte.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const GIT_SKILL_MD = `---
name: git-workflow
description: Branch, commit and open pull requests the way this team does
license: MIT
metadata:
  author: ada
  version: "1.2"
---

# Git workflow

Read [branching](references/branching.md) first.
`;

export const PDF_SKILL_MD = `---
name: pdf-tools
description: Fill in and merge PDF forms
allowed-tools: [Bash, Read]
---
Use scripts/fill.py.
`;

/** A PNG signature and bytes that are not UTF-8: served as a blob. */
export const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x80]);

export const sha256 = (bytes: string | Buffer) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Writes `files` (relative path → content) under `root`. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A fresh folder with git-workflow and pdf-tools; `remove()` deletes it. */
export function skillsDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-skills-'));
  writeTree(dir, {
    'git-workflow/SKILL.md': GIT_SKILL_MD,
    'git-workflow/references/branching.md': '# Branching\n\nOne branch per change.\n',
    'git-workflow/assets/logo.png': LOGO,
    'pdf-tools/SKILL.md': PDF_SKILL_MD,
    'pdf-tools/scripts/fill.py': 'print("fill")\n',
    '.hidden/SKILL.md': 'not a skill: dot-directories are skipped',
    'README.md': 'files beside the skill directories are not skills',
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
