import { readFileSync } from 'node:fs';

// The meta-schema check of plain JSON Schemas is generated code (scripts/generate-meta-schema-validator.js);
// it must be what the installed ajv generates, so an ajv upgrade cannot leave it stale.
const { generate, TARGET } = require('../../../scripts/generate-meta-schema-validator.js') as {
  generate(): string;
  TARGET: string;
};

describe('the generated JSON Schema 2020-12 meta-schema validator', () => {
  it('is what scripts/generate-meta-schema-validator.js generates from the installed ajv', () => {
    expect(readFileSync(TARGET, 'utf8')).toBe(generate());
  });

  it('refuses a schema with an unknown type and accepts a well-formed one', () => {
    const check = require('../src/schema/generated/meta-schema-2020-12') as ((schema: unknown) => boolean) & {
      errors?: Array<{ instancePath: string }> | null;
    };
    expect(check({ type: 'object', properties: { a: { type: 'strin' } } })).toBe(false);
    expect(check.errors?.some((error) => error.instancePath === '/properties/a/type')).toBe(true);
    expect(check({ type: 'object', properties: { a: { type: 'string', pattern: '^a' } } })).toBe(true);
  });
});
