// Compares the JSON Schema validators Gantry could use for plain-JSON-Schema tools: ajv 8
// (`ajv/dist/2020` with ajv-formats) and @cfworker/json-schema 4, next to whatever
// `compileJsonSchemaValidator` of @gantry/core is today. Correctness first (a table of cases, one
// or more per keyword), then speed (validations per second on a typical tool schema, compile time,
// `require` time). Not part of the test suite; run it by hand:
//
//   npx tsc -b && node apps/bench/dist/json-schema-validators.js
import { execFileSync } from 'node:child_process';
import { Validator as CfValidator } from '@cfworker/json-schema';
import type { ArgsValidator } from '@gantry/core';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Schema = Record<string, unknown>;

// Not a public export of @gantry/core: read from its build in this repository.
const { compileJsonSchemaValidator } =
  require('../../../packages/core/dist/schema/json-schema-validator') as {
    compileJsonSchemaValidator(schema: object): ArgsValidator;
  };

/** One validator under test: compile a schema (may throw), then answer valid or not. */
interface Candidate {
  name: string;
  compile(schema: Schema): (data: unknown) => boolean;
}

function ajvInstance(): Ajv2020 {
  // strict: false, so unknown keywords and unknown formats are ignored as 2020-12 says (core §6.5).
  const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
  addFormats(ajv);
  return ajv;
}

const sharedAjv = ajvInstance();

const candidates: Candidate[] = [
  {
    name: 'ajv 8 (2020) + ajv-formats',
    compile(schema) {
      const validate = sharedAjv.compile(schema);
      return (data) => validate(data) as boolean;
    },
  },
  {
    name: '@cfworker/json-schema 4',
    compile(schema) {
      const validator = new CfValidator(schema, '2020-12', false);
      return (data) => validator.validate(data).valid;
    },
  },
  {
    name: 'gantry compileJsonSchemaValidator',
    compile(schema) {
      const validator = compileJsonSchemaValidator(schema);
      return (data) => (validator.validate(data) as { ok: boolean }).ok;
    },
  },
];

/** A case: a schema and instances with the answer a 2020-12 validator asserting formats gives. */
interface Case {
  name: string;
  schema: Schema;
  valid: unknown[];
  invalid: unknown[];
}

const obj = (properties: Schema, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });

const cases: Case[] = [
  {
    name: 'issue #11 example: n, u, m, x',
    schema: obj(
      {
        n: { type: 'integer', not: { maximum: -1 } },
        u: { type: 'array', uniqueItems: true },
        m: { type: 'integer', multipleOf: 2 },
        x: { $ref: '#/$defs/num' },
      },
      { $defs: { num: { type: 'number' } } },
    ),
    valid: [{ n: 3, u: [1, 2], m: 8, x: 1 }],
    invalid: [{ n: -3, u: [1, 1], m: 7, x: 'str' }],
  },
  { name: 'not', schema: obj({ a: { not: { type: 'string' } } }), valid: [{ a: 1 }], invalid: [{ a: 's' }] },
  {
    name: 'if/then/else',
    schema: {
      type: 'object',
      if: { properties: { kind: { const: 'a' } }, required: ['kind'] },
      // biome-ignore lint/suspicious/noThenProperty: the if/then/else keyword of JSON Schema 2020-12
      then: { required: ['a'] },
      else: { required: ['b'] },
    },
    valid: [{ kind: 'a', a: 1 }, { b: 1 }],
    invalid: [{ kind: 'a', b: 1 }, { a: 1 }],
  },
  { name: 'multipleOf', schema: obj({ m: { multipleOf: 0.5 } }), valid: [{ m: 1.5 }], invalid: [{ m: 1.2 }] },
  {
    name: 'uniqueItems (deep)',
    schema: obj({ u: { uniqueItems: true } }),
    valid: [{ u: [{ a: 1 }, { a: 2 }] }],
    invalid: [{ u: [{ a: 1 }, { a: 1 }] }],
  },
  {
    name: 'prefixItems + items: false',
    schema: obj({ t: { prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } }),
    valid: [{ t: ['a', 1] }],
    invalid: [{ t: [1, 'a'] }, { t: ['a', 1, 2] }],
  },
  {
    name: 'contains / minContains / maxContains',
    schema: obj({ c: { contains: { type: 'integer' }, minContains: 1, maxContains: 2 } }),
    valid: [{ c: ['a', 1] }],
    invalid: [{ c: ['a'] }, { c: [1, 2, 3] }],
  },
  {
    name: 'dependentRequired',
    schema: { type: 'object', dependentRequired: { card: ['cvc'] } },
    valid: [{ card: 1, cvc: 2 }, {}],
    invalid: [{ card: 1 }],
  },
  {
    name: 'dependentSchemas',
    schema: { type: 'object', dependentSchemas: { card: { required: ['cvc'] } } },
    valid: [{ card: 1, cvc: 2 }],
    invalid: [{ card: 1 }],
  },
  {
    name: 'propertyNames',
    schema: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
    valid: [{ abc: 1 }],
    invalid: [{ Abc: 1 }],
  },
  {
    name: 'unevaluatedProperties',
    schema: { type: 'object', allOf: [{ properties: { a: {} } }], unevaluatedProperties: false },
    valid: [{ a: 1 }],
    invalid: [{ a: 1, b: 2 }],
  },
  {
    name: 'unevaluatedItems',
    schema: obj({ l: { prefixItems: [{ type: 'string' }], unevaluatedItems: false } }),
    valid: [{ l: ['a'] }],
    invalid: [{ l: ['a', 'b'] }],
  },
  {
    name: 'min/maxProperties',
    schema: obj({ o: { type: 'object', minProperties: 1, maxProperties: 1 } }),
    valid: [{ o: { a: 1 } }],
    invalid: [{ o: {} }, { o: { a: 1, b: 2 } }],
  },
  {
    name: '$ref to $defs (recursive)',
    schema: {
      $defs: {
        node: { type: 'object', properties: { next: { $ref: '#/$defs/node' }, v: { type: 'integer' } } },
      },
      $ref: '#/$defs/node',
    },
    valid: [{ v: 1, next: { v: 2 } }],
    invalid: [{ v: 1, next: { v: 'x' } }],
  },
  {
    name: 'format email / date-time / uri / uuid',
    schema: obj({
      e: { type: 'string', format: 'email' },
      d: { type: 'string', format: 'date-time' },
      u: { type: 'string', format: 'uri' },
      i: { type: 'string', format: 'uuid' },
    }),
    valid: [
      {
        e: 'a@b.example',
        d: '2025-01-02T03:04:05Z',
        u: 'https://a.example/x',
        i: '6f1c0bb4-3b5b-4c55-9f34-0d8f0f8d0a11',
      },
    ],
    invalid: [{ e: 'nope' }, { d: 'yesterday' }, { u: 'not a uri' }, { i: '123' }],
  },
  {
    name: 'format date (elicitation)',
    schema: obj({ d: { type: 'string', format: 'date' } }),
    valid: [{ d: '2025-02-28' }],
    invalid: [{ d: '2025-02-30' }, { d: '28/02/2025' }],
  },
  {
    name: 'unknown format is ignored',
    schema: obj({ s: { type: 'string', format: 'color-name' } }),
    valid: [{ s: 'anything' }],
    invalid: [],
  },
  {
    name: 'unknown keywords are ignored',
    schema: obj({ s: { type: 'string', 'x-order': 1, nullable: true } }),
    valid: [{ s: 'a' }],
    invalid: [{ s: 1 }],
  },
  {
    name: 'draft-07 definitions + $ref',
    schema: obj(
      { p: { $ref: '#/definitions/pos' } },
      { definitions: { pos: { type: 'integer', minimum: 1 } } },
    ),
    valid: [{ p: 1 }],
    invalid: [{ p: 0 }],
  },
  {
    name: 'draft-07 tuple items + additionalItems (as written, no $schema)',
    schema: obj({
      t: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
    }),
    valid: [{ t: ['a', 1] }],
    invalid: [{ t: [1, 'a'] }, { t: ['a', 1, 2] }],
  },
  {
    name: 'draft-07 $schema declared',
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    },
    valid: [{ a: 'x' }],
    invalid: [{ a: 1 }, {}],
  },
  {
    name: 'draft-07 dependencies',
    schema: { type: 'object', dependencies: { card: ['cvc'] } },
    valid: [{ card: 1, cvc: 2 }],
    invalid: [{ card: 1 }],
  },
  {
    name: 'maxLength in code points',
    schema: obj({ s: { type: 'string', maxLength: 2 } }),
    valid: [{ s: '😀😀' }],
    invalid: [{ s: '😀😀😀' }],
  },
];

/** Schemas that are wrong: a validator should refuse them when compiling, not at call time. */
const brokenSchemas: { name: string; schema: Schema }[] = [
  { name: 'unknown type', schema: obj({ a: { type: 'text' } }) },
  { name: 'invalid pattern', schema: obj({ a: { pattern: '(' } }) },
  { name: 'required not an array', schema: { type: 'object', required: 'a' } },
  { name: '$ref to a missing $defs entry', schema: obj({ a: { $ref: '#/$defs/missing' } }) },
  { name: 'minimum not a number', schema: obj({ a: { minimum: '1' } }) },
];

function correctness(): void {
  console.log('## Correctness (a mismatch is a wrong answer; "throws" means the schema was refused)\n');
  const header = ['case', ...candidates.map((c) => c.name)];
  const rows: string[][] = [];
  const wrong = new Map(candidates.map((c) => [c.name, 0]));
  for (const item of cases) {
    const row = [item.name];
    for (const candidate of candidates) {
      let cell: string;
      try {
        const check = candidate.compile(item.schema);
        const misses = [
          ...item.valid.filter((d) => !check(d)).map((d) => `rejects ${JSON.stringify(d)}`),
          ...item.invalid.filter((d) => check(d)).map((d) => `accepts ${JSON.stringify(d)}`),
        ];
        cell = misses.length === 0 ? 'ok' : `WRONG: ${misses.join(', ')}`;
        if (misses.length > 0) wrong.set(candidate.name, (wrong.get(candidate.name) ?? 0) + 1);
      } catch (error) {
        cell = `throws: ${(error as Error).message.slice(0, 60)}`;
        wrong.set(candidate.name, (wrong.get(candidate.name) ?? 0) + 1);
      }
      row.push(cell);
    }
    rows.push(row);
  }
  for (const item of brokenSchemas) {
    const row = [`broken schema: ${item.name}`];
    for (const candidate of candidates) {
      try {
        candidate.compile(item.schema);
        row.push('WRONG: compiles');
        wrong.set(candidate.name, (wrong.get(candidate.name) ?? 0) + 1);
      } catch (error) {
        row.push(`refused: ${(error as Error).message.slice(0, 60)}`);
      }
    }
    rows.push(row);
  }
  printTable(header, rows);
  console.log(`\nwrong answers: ${candidates.map((c) => `${c.name} ${wrong.get(c.name)}`).join('; ')}\n`);
}

/** A typical tool input schema: the shape of a search tool's arguments. */
const toolSchema: Schema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z-]+$' }, maxItems: 10 },
    mode: { enum: ['fast', 'exact'] },
    since: { type: 'string', format: 'date-time' },
  },
  required: ['query'],
  additionalProperties: false,
};
const validArgs = { query: 'gantry notes', limit: 20, tags: ['work', 'mcp-server'], mode: 'fast' };
const invalidArgs = { query: '', limit: 500, tags: ['Work'], extra: true };

function perSecond(run: () => void): number {
  for (let i = 0; i < 20_000; i++) run();
  let count = 0;
  const start = process.hrtime.bigint();
  const budget = 1_000_000_000n;
  while (process.hrtime.bigint() - start < budget) {
    for (let i = 0; i < 1000; i++) run();
    count += 1000;
  }
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

function msOf(run: () => void, times: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < times; i++) run();
  return Number(process.hrtime.bigint() - start) / 1e6 / times;
}

function requireMs(modules: string[]): number {
  const code = `const t=process.hrtime.bigint();${modules.map((m) => `require(${JSON.stringify(m)});`).join('')}process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  const runs: number[] = [];
  for (let i = 0; i < 5; i++)
    runs.push(Number(execFileSync(process.execPath, ['-e', code], { cwd: __dirname })));
  runs.sort((a, b) => a - b);
  return runs[2];
}

function speed(): void {
  console.log('## Speed (one core; median of 5 runs for require time)\n');
  const rows: string[][] = [];
  const fresh: Record<string, () => void> = {
    'ajv 8 (2020) + ajv-formats': () => ajvInstance().compile(toolSchema),
    '@cfworker/json-schema 4': () => new CfValidator(toolSchema, '2020-12', false),
    'gantry compileJsonSchemaValidator': () => compileJsonSchemaValidator(toolSchema),
  };
  const again: Record<string, () => void> = {
    // A new object each time, so ajv's cache (keyed by the schema) does not answer.
    'ajv 8 (2020) + ajv-formats': () => sharedAjv.compile(structuredClone(toolSchema)),
    '@cfworker/json-schema 4': () => new CfValidator(structuredClone(toolSchema), '2020-12', false),
    'gantry compileJsonSchemaValidator': () => compileJsonSchemaValidator(structuredClone(toolSchema)),
  };
  const modules: Record<string, string[]> = {
    'ajv 8 (2020) + ajv-formats': ['ajv/dist/2020', 'ajv-formats'],
    '@cfworker/json-schema 4': ['@cfworker/json-schema'],
    'gantry compileJsonSchemaValidator': ['../../../packages/core/dist/schema/json-schema-validator'],
  };
  for (const candidate of candidates) {
    const check = candidate.compile(toolSchema);
    if (!check(validArgs) || check(invalidArgs))
      throw new Error(`${candidate.name} answers the tool schema wrongly`);
    rows.push([
      candidate.name,
      Math.round(perSecond(() => check(validArgs))).toLocaleString('en-US'),
      Math.round(perSecond(() => check(invalidArgs))).toLocaleString('en-US'),
      msOf(fresh[candidate.name], 20).toFixed(2),
      msOf(again[candidate.name], 200).toFixed(3),
      requireMs(modules[candidate.name]).toFixed(1),
    ]);
  }
  printTable(
    ['validator', 'valid args /s', 'invalid args /s', 'first compile ms', 'next compile ms', 'require ms'],
    rows,
  );
  console.log('\n("first compile" includes a new ajv instance with its meta-schemas)');
}

function printTable(header: string[], rows: string[][]): void {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

correctness();
speed();
