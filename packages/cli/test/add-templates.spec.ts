import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const TEMPLATES = join(__dirname, '../templates');

/** From `await app.listen(` to the end of the function it is in: how a template serves and stops. */
function servingPart(file: string): string {
  const text = readFileSync(join(TEMPLATES, file), 'utf8');
  const start = text.indexOf('  await app.listen(');
  const end = text.indexOf('\n}\n', start);
  if (start === -1 || end === -1) throw new Error(`${file}: no app.listen(...) in a function`);
  return text.slice(start, end);
}

// The two files are templates a user reads on their own, so each spells the serving code out
// rather than importing it from the other; this keeps them saying the same thing.
describe('templates/add/serve-http.ts', () => {
  it('serves and stops as the main.ts of gantry new --transport http does (docs/cli.md says so)', () => {
    expect(servingPart('add/serve-http.ts')).toBe(servingPart('http/src/main.ts'));
  });
});
