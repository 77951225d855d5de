import 'reflect-metadata';
import {
  Args,
  type GantryApplication,
  GantryFactory,
  generateViewTypes,
  Injectable,
  Module,
  schemaToTypeScript,
  Tool,
  UiResource,
} from '@gantry/core';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import ts from 'typescript';

class Card {
  @IsString()
  title!: string;

  @IsIn(['todo', 'done'])
  state!: 'todo' | 'done';
}

class Board {
  @IsString()
  name!: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Card)
  cards!: Card[];

  @IsOptional()
  @IsInt()
  version?: number;
}

class ShowArgs {
  @IsString()
  @MaxLength(40)
  board!: string;
}

@Injectable()
@UiResource({ uri: 'ui://t/board', html: '<!doctype html><p>board</p>' })
class Tools {
  @Tool({ description: 'Shows a board', output: Board, ui: { resource: 'ui://t/board' } })
  showBoard(@Args() _args: ShowArgs): Board {
    return { name: 'b', cards: [] };
  }

  @Tool({ ui: { resource: 'ui://t/board', visibility: ['app'] } })
  refresh() {
    return 'ok';
  }

  @Tool({ description: 'No view' })
  plain() {
    return 'plain';
  }
}

@Module({ providers: [Tools] })
class AppModule {}

/** Type-checks `files` (name → source) strictly; returns the diagnostics as text. */
function typeCheck(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  const path = (name: string) => `/virtual/${name}`;
  const virtual = new Map(Object.entries(files).map(([name, text]) => [path(name), text]));
  host.directoryExists = (dir) => dir === '/virtual' || ts.sys.directoryExists(dir);
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined
      ? getSourceFile.call(host, file, language, ...rest)
      : ts.createSourceFile(file, text, language, true);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where =
      d.file && d.start !== undefined
        ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: `
        : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

let app: GantryApplication;
beforeAll(async () => {
  app = await GantryFactory.create(AppModule, { name: 'types', version: '1', logger: false });
});
afterAll(() => app.close());

describe('generateViewTypes(app)', () => {
  it('declares the arguments and structuredContent of the tools with a view, from their schemas', () => {
    const text = generateViewTypes(app);
    expect(text).toContain('export type ShowBoardArguments = {\n  board: string;\n};');
    expect(text).toMatch(
      /export type ShowBoardResult = \{\n {2}name: string;\n {2}cards: \{\n {4}title: string;\n {4}state: "todo" \| "done";\n {2}\}\[\];\n {2}version\?: number;\n\};/,
    );
    expect(text).toContain('"show_board": ShowBoardResult;');
    expect(text).toContain('"refresh": undefined;');
    expect(text).toContain('"refresh": RefreshArguments;');
    expect(text).toContain('export type RefreshArguments = Record<string, never>;');
    expect(text).not.toContain('plain');
    expect(generateViewTypes(app, { allTools: true })).toContain('"plain": PlainArguments;');
  });

  it('type-checks, and a view using it is held to the schema', () => {
    const views = generateViewTypes(app);
    const good = `import type { ViewResults, ViewArguments } from './tools';
const board: ViewResults['show_board'] = { name: 'b', cards: [{ title: 't', state: 'done' }] };
const args: ViewArguments['show_board'] = { board: 'b' };
const none: ViewResults['refresh'] = undefined;
const noArgs: ViewArguments['refresh'] = {};
export { board, args, none, noArgs };
`;
    expect(typeCheck({ 'tools.d.ts': views, 'view.ts': good })).toEqual([]);
    const bad = `import type { ViewArguments, ViewResults } from './tools';
export const wrongState: ViewResults['show_board'] = { name: 'b', cards: [{ title: 't', state: 'doing' }] };
export const missing: ViewResults['show_board'] = { cards: [] };
export const extra: ViewArguments['refresh'] = { force: true };
`;
    const problems = typeCheck({ 'tools.d.ts': views, 'view.ts': bad });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(
      /view.ts:2: Type '"doing"' is not assignable to type '"(?:done|todo)" \| "(?:done|todo)"'/,
    );
    expect(problems[1]).toMatch(/view.ts:3: Property 'name' is missing/);
    expect(problems[2]).toMatch(/view.ts:4: Type 'true' is not assignable to type 'never'/);
  });
});

describe('schemaToTypeScript', () => {
  it('covers enums, const, unions, intersections, tuples, nullable, refs, maps and quoted keys', () => {
    const schema = {
      type: 'object',
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      properties: {
        kind: { const: 'board' },
        size: { enum: ['s', 'm', 1] },
        maybe: { type: ['string', 'null'] },
        either: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'integer' } }] },
        both: {
          allOf: [{ $ref: '#/$defs/point' }, { type: 'object', properties: { y: { type: 'number' } } }],
        },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] },
        tags: { type: 'object', additionalProperties: { type: 'string' } },
        old: { type: 'string', nullable: true },
        'data-id': { type: 'string', description: 'An id */ with a comment end' },
        loose: {},
      },
      required: ['kind'],
      additionalProperties: false,
    };
    const type = schemaToTypeScript(schema);
    for (const line of [
      'kind: "board";',
      'size?: "s" | "m" | 1;',
      'maybe?: string | null;',
      'either?: string | number[];',
      'pair?: [string, boolean];',
      'old?: string | null;',
      '/** An id *\\/ with a comment end */',
      '"data-id"?: string;',
      'loose?: unknown;',
    ]) {
      expect(type).toContain(line);
    }
    expect(type).toMatch(/both\?: \{\n\s+x: number;\n\s+\} & \{\n\s+y\?: number;\n\s+\};/);
    expect(type).toMatch(/tags\?: \{\n\s+\[key: string\]: string;\n\s+\};/);
    expect(
      typeCheck({
        'schema.ts': `export type T = ${type};\nexport const t: T = { kind: 'board', both: { x: 1 }, tags: { a: 'b' } };\n`,
      }),
    ).toEqual([]);
  });

  it('a $ref that loops or leads elsewhere is unknown', () => {
    const schema = {
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
      $ref: '#/$defs/node',
    };
    expect(schemaToTypeScript(schema)).toBe('{\n  next?: unknown;\n}');
    expect(schemaToTypeScript({ $ref: 'https://example.com/schema' })).toBe('unknown');
  });
});
