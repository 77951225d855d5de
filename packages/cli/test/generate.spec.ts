import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitCode } from '../src/exit-codes';
import { generateProvider } from '../src/scaffold/generate-provider';
import { addProvider, listedProviders } from '../src/scaffold/module-editor';
import { providerNames } from '../src/scaffold/provider-names';
import { runInProcess } from './support/run-in-process';

/** `gantry <args>` in `cwd`. */
const gantry = (cwd: string, ...args: string[]) => runInProcess(args, { cwd });

/** `source` with `WeatherTool` added, or the reason it could not be. */
function add(source: string): string {
  const edit = addProvider(source, 'WeatherTool', './weather.tool');
  if (!edit.ok) throw new Error(`not edited: ${edit.reason}`);
  return edit.text;
}

function refusal(source: string): string {
  const edit = addProvider(source, 'WeatherTool', './weather.tool');
  if (edit.ok) throw new Error(`edited:\n${edit.text}`);
  return edit.reason;
}

describe('adding a provider to a module', () => {
  it('appends to a one-line array, after the last import', () => {
    expect(
      add(
        [
          "import { Module } from '@gantry/core';",
          "import { NotesTools } from './notes.tools';",
          '',
          '@Module({ providers: [NotesRepository, NotesTools] })',
          'export class AppModule {}',
          '',
        ].join('\n'),
      ),
    ).toBe(
      [
        "import { Module } from '@gantry/core';",
        "import { NotesTools } from './notes.tools';",
        "import { WeatherTool } from './weather.tool';",
        '',
        '@Module({ providers: [NotesRepository, NotesTools, WeatherTool] })',
        'export class AppModule {}',
        '',
      ].join('\n'),
    );
  });

  it('fills an empty array', () => {
    expect(
      add("import { Module } from '@gantry/core';\n\n@Module({ providers: [] })\nexport class M {}\n"),
    ).toBe(
      "import { Module } from '@gantry/core';\nimport { WeatherTool } from './weather.tool';\n\n" +
        '@Module({ providers: [WeatherTool] })\nexport class M {}\n',
    );
  });

  it('keeps a trailing comma on one line', () => {
    expect(
      add("import { Module } from '@gantry/core';\n@Module({ providers: [A, B,] })\nclass M {}\n"),
    ).toContain('@Module({ providers: [A, B, WeatherTool,] })');
  });

  it('adds a line to a multi-line array with trailing commas, after a comment on the last line', () => {
    const source = [
      "import { Module } from '@gantry/core';",
      '',
      '@Module({',
      '  imports: [OtherModule],',
      '  providers: [',
      "    { provide: NOTES_DIR, useFactory: () => resolve(process.env.NOTES_DIR ?? 'data') },",
      '    NotesRepository,',
      '    NotesTools, // the tools',
      '  ],',
      '  exports: [NotesRepository],',
      '})',
      'export class AppModule {}',
    ].join('\n');
    expect(add(source)).toBe(
      [
        "import { Module } from '@gantry/core';",
        "import { WeatherTool } from './weather.tool';",
        '',
        '@Module({',
        '  imports: [OtherModule],',
        '  providers: [',
        "    { provide: NOTES_DIR, useFactory: () => resolve(process.env.NOTES_DIR ?? 'data') },",
        '    NotesRepository,',
        '    NotesTools, // the tools',
        '    WeatherTool,',
        '  ],',
        '  exports: [NotesRepository],',
        '})',
        'export class AppModule {}',
      ].join('\n'),
    );
  });

  it('adds a comma and a line to a multi-line array without a trailing comma', () => {
    const source =
      "import { Module } from '@gantry/core';\n@Module({\n  providers: [\n    A,\n    B\n  ]\n})\nclass M {}\n";
    expect(add(source)).toBe(
      "import { Module } from '@gantry/core';\nimport { WeatherTool } from './weather.tool';\n" +
        '@Module({\n  providers: [\n    A,\n    B,\n    WeatherTool\n  ]\n})\nclass M {}\n',
    );
  });

  it('splits a one-line array that would grow too long into one element per line', () => {
    const source = [
      "import { Module } from '@gantry/core';",
      '@Module({',
      '  providers: [GreetingService, GreeterTool, GreeterResource, GreeterPrompt, ForecastResource, ReviewPrompt],',
      '})',
      'class M {}',
    ].join('\n');
    expect(add(source)).toContain(
      [
        '  providers: [',
        '    GreetingService,',
        '    GreeterTool,',
        '    GreeterResource,',
        '    GreeterPrompt,',
        '    ForecastResource,',
        '    ReviewPrompt,',
        '    WeatherTool,',
        '  ],',
      ].join('\n'),
    );
  });

  it('adds a providers key when there is none', () => {
    expect(add("import { Module } from '@gantry/core';\n@Module({})\nclass M {}\n")).toContain(
      '@Module({ providers: [WeatherTool] })',
    );
    expect(add("import { Module } from '@gantry/core';\n@Module({ imports: [A] })\nclass M {}\n")).toContain(
      '@Module({ providers: [WeatherTool], imports: [A] })',
    );
    expect(
      add("import { Module } from '@gantry/core';\n@Module({\n  imports: [A],\n})\nclass M {}\n"),
    ).toContain('@Module({\n  providers: [WeatherTool],\n  imports: [A],\n})');
  });

  it("follows the file's quotes, semicolons and line ends", () => {
    expect(
      add(
        'import { Module } from "@gantry/core"\r\n\r\n@Module({\r\n  providers: [\r\n    A,\r\n  ],\r\n})\r\nclass M {}\r\n',
      ),
    ).toBe(
      'import { Module } from "@gantry/core"\r\nimport { WeatherTool } from "./weather.tool"\r\n\r\n' +
        '@Module({\r\n  providers: [\r\n    A,\r\n    WeatherTool,\r\n  ],\r\n})\r\nclass M {}\r\n',
    );
  });

  it('handles multi-line imports, and brackets or @Module in comments and strings', () => {
    const source = [
      '// @Module({ providers: [Old] }) was the old one',
      'import {',
      '  Module,',
      "} from '@gantry/core';",
      "const note = '@Module({ providers: [';",
      '@Module({ providers: [{ provide: TOKEN, useValue: "]), [" }, /* ] */ A] })',
      'class M {}',
    ].join('\n');
    const edited = add(source);
    expect(edited).toContain("} from '@gantry/core';\nimport { WeatherTool } from './weather.tool';\n");
    expect(edited).toContain(
      '@Module({ providers: [{ provide: TOKEN, useValue: "]), [" }, /* ] */ A, WeatherTool] })',
    );
    expect(listedProviders(edited)).toEqual(['{ provide: TOKEN, useValue: "]), [" }', 'A', 'WeatherTool']);
  });

  it('writes the import first in a file without imports', () => {
    expect(add('@Module({ providers: [A] })\nclass M {}\n')).toBe(
      "import { WeatherTool } from './weather.tool';\n@Module({ providers: [A, WeatherTool] })\nclass M {}\n",
    );
  });

  it('changes nothing when the provider is there already', () => {
    const source =
      "import { WeatherTool } from './weather.tool';\n@Module({ providers: [WeatherTool] })\nclass M {}\n";
    expect(addProvider(source, 'WeatherTool', './weather.tool')).toEqual({
      ok: true,
      text: source,
      changed: false,
    });
  });

  it.each([
    [
      'providers from a variable',
      '@Module({ providers: PROVIDERS })',
      'its providers are not an array literal ("providers: [...]")',
    ],
    [
      'a spread array',
      '@Module({ providers: [...base, A].concat(B) })',
      'its providers are not an array literal ("providers: [...]")',
    ],
    [
      'a shorthand key',
      '@Module({ providers })',
      'its providers are not written as "providers: [...]" in the @Module object',
    ],
    [
      'a spread object',
      '@Module({ ...shared })',
      'its providers are not written as "providers: [...]" in the @Module object',
    ],
    ['no @Module', 'export class M {}', 'it has no @Module({ ... }) decorator'],
    ['a computed object', '@Module(metadata)', '@Module(...) is not given an object literal'],
    [
      'two modules',
      '@Module({ providers: [A] }) class A1 {}\n@Module({ providers: [B] }) class B1 {}',
      'it has 2 @Module(...) decorators, and which one should get the provider is yours to say',
    ],
  ])('leaves a module alone when it has %s', (_, body, reason) => {
    expect(refusal(`import { Module } from '@gantry/core';\n${body}\n`)).toBe(reason);
  });
});

describe('provider names', () => {
  it.each([
    ['weather', { kebab: 'weather', pascal: 'Weather', camel: 'weather', wireName: 'weather' }],
    [
      'get-forecast',
      { kebab: 'get-forecast', pascal: 'GetForecast', camel: 'getForecast', wireName: 'get_forecast' },
    ],
    [
      'get_forecast',
      { kebab: 'get-forecast', pascal: 'GetForecast', camel: 'getForecast', wireName: 'get_forecast' },
    ],
    [
      'GetForecast',
      { kebab: 'get-forecast', pascal: 'GetForecast', camel: 'getForecast', wireName: 'get_forecast' },
    ],
    [
      'getHTTPStatus',
      {
        kebab: 'get-http-status',
        pascal: 'GetHttpStatus',
        camel: 'getHttpStatus',
        wireName: 'get_http_status',
      },
    ],
    ['v2Data', { kebab: 'v2-data', pascal: 'V2Data', camel: 'v2Data', wireName: 'v2_data' }],
  ])('%s', (input, names) => {
    expect(providerNames(input)).toEqual(names);
  });

  it.each(['bad name', '2fast', 'x--y', '-x', 'x-', 'na.me', ''])('refuses %j', (input) => {
    expect(() => providerNames(input)).toThrow(
      `invalid name "${input}": a name starts with a letter and has only letters and digits, with words ` +
        'separated by "-" or "_" or written in camelCase (e.g. get-forecast)',
    );
  });
});

describe('gantry generate in a project', () => {
  let project: string;
  const read = (file: string) => readFileSync(join(project, file), 'utf8');

  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'gantry-generate-'));
    writeFileSync(join(project, 'package.json'), '{ "name": "p" }\n');
    mkdirSync(join(project, 'src'));
    writeFileSync(
      join(project, 'src', 'app.module.ts'),
      "import { Module } from '@gantry/core';\nimport { GreeterTool } from './greeter.tool';\n\n@Module({\n  providers: [GreeterTool],\n})\nexport class AppModule {}\n",
    );
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  it('generate tool writes the class with its DTO and its test, and registers it', async () => {
    const result = await gantry(project, 'generate', 'tool', 'get-forecast');
    expect(result).toEqual({
      code: ExitCode.Ok,
      stdout:
        'created src/get-forecast.tool.ts\ncreated test/get-forecast.tool.spec.ts\n' +
        'updated src/app.module.ts: GetForecastTool is in its providers\n',
      stderr: '',
    });
    const source = read('src/get-forecast.tool.ts');
    expect(source).toContain('export class GetForecastArgs {\n  @IsString()\n');
    expect(source).toContain(
      "export class GetForecastTool {\n  @Tool({ description: 'Describe what get_forecast does, for the model' })\n",
    );
    expect(source).toContain('  getForecast(@Args() { input }: GetForecastArgs): string {\n');
    const spec = read('test/get-forecast.tool.spec.ts');
    expect(spec).toContain("import { GetForecastTool } from '../src/get-forecast.tool';\n");
    expect(spec).toContain("await client.callTool('get_forecast', { input: 'test' })");
    expect(read('src/app.module.ts')).toBe(
      "import { Module } from '@gantry/core';\nimport { GreeterTool } from './greeter.tool';\nimport { GetForecastTool } from './get-forecast.tool';\n\n" +
        '@Module({\n  providers: [GreeterTool, GetForecastTool],\n})\nexport class AppModule {}\n',
    );
    for (const file of ['src/get-forecast.tool.ts', 'test/get-forecast.tool.spec.ts'])
      expect(read(file)).not.toContain('{{');
  });

  it('generate resource and prompt write their classes and tests', async () => {
    expect((await gantry(project, 'g', 'resource', 'forecast')).code).toBe(ExitCode.Ok);
    expect((await gantry(project, 'generate', 'prompt', 'reviewCode')).code).toBe(ExitCode.Ok);
    expect(read('src/forecast.resource.ts')).toContain("@Resource({\n    uri: 'forecast://{id}',\n");
    expect(read('src/forecast.resource.ts')).toContain("  forecast(@Param('id') id: string): string {\n");
    expect(read('test/forecast.resource.spec.ts')).toContain(
      "{ uri: 'forecast://42', mimeType: 'text/plain', text: 'forecast 42' }",
    );
    expect(read('src/review-code.prompt.ts')).toContain('export class ReviewCodePromptArgs {');
    expect(read('src/review-code.prompt.ts')).toContain(
      '  reviewCode(@Args() { topic }: ReviewCodePromptArgs): string {\n',
    );
    expect(read('test/review-code.prompt.spec.ts')).toContain(
      "{ name: 'review_code', arguments: { topic: 'test' } }",
    );
    expect(listedProviders(read('src/app.module.ts'))).toEqual([
      'GreeterTool',
      'ForecastResource',
      'ReviewCodePrompt',
    ]);
  });

  it('registers in the module named by --module, with a relative import', async () => {
    mkdirSync(join(project, 'src', 'weather'));
    writeFileSync(
      join(project, 'src', 'weather', 'weather.module.ts'),
      '@Module({ providers: [] })\nexport class WeatherModule {}\n',
    );
    const result = await gantry(
      project,
      'generate',
      'tool',
      'weather',
      '--module',
      'src/weather/weather.module.ts',
    );
    expect(result.stdout).toContain(
      'updated src/weather/weather.module.ts: WeatherTool is in its providers\n',
    );
    expect(read('src/weather/weather.module.ts')).toBe(
      "import { WeatherTool } from '../weather.tool';\n@Module({ providers: [WeatherTool] })\nexport class WeatherModule {}\n",
    );
  });

  it('prints the lines to add when it cannot edit the module, and exits 0', async () => {
    const module =
      "import { Module } from '@gantry/core';\n\n@Module({ providers: PROVIDERS })\nexport class AppModule {}\n";
    writeFileSync(join(project, 'src', 'app.module.ts'), module);
    expect(await gantry(project, 'generate', 'tool', 'weather')).toEqual({
      code: ExitCode.Ok,
      stdout: [
        'created src/weather.tool.ts',
        'created test/weather.tool.spec.ts',
        'note: WeatherTool was not added to src/app.module.ts, because its providers are not an array literal ("providers: [...]").',
        'Add it yourself: the import',
        "  import { WeatherTool } from './weather.tool';",
        "and WeatherTool in the providers of the module's @Module({ ... }):",
        '  @Module({ providers: [/* the providers it has, then */ WeatherTool] })',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(read('src/app.module.ts')).toBe(module);
    expect(existsSync(join(project, 'src', 'weather.tool.ts'))).toBe(true);
  });

  it('works from a subdirectory of the project', async () => {
    const result = await gantry(join(project, 'src'), 'generate', 'prompt', 'summary');
    expect(result.code).toBe(ExitCode.Ok);
    expect(existsSync(join(project, 'src', 'summary.prompt.ts'))).toBe(true);
    expect(existsSync(join(project, 'test', 'summary.prompt.spec.ts'))).toBe(true);
  });

  it('refuses to overwrite a file, and writes nothing', async () => {
    mkdirSync(join(project, 'test'));
    writeFileSync(join(project, 'test', 'weather.tool.spec.ts'), 'mine');
    expect(await gantry(project, 'generate', 'tool', 'weather')).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: 'gantry: test/weather.tool.spec.ts exists already; choose another name or remove the file\n',
    });
    expect(existsSync(join(project, 'src', 'weather.tool.ts'))).toBe(false);
    expect(read('test/weather.tool.spec.ts')).toBe('mine');
  });

  it('refuses invalid names and kinds, and a missing module', async () => {
    expect((await gantry(project, 'generate', 'tool', 'bad name')).stderr).toBe(
      'gantry: invalid name "bad name": a name starts with a letter and has only letters and digits, with words ' +
        'separated by "-" or "_" or written in camelCase (e.g. get-forecast)\n',
    );
    expect(await gantry(project, 'generate', 'widget', 'x')).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: 'gantry: cannot generate "widget": choose one of tool, resource, prompt\n',
    });
    expect((await gantry(project, 'generate', 'tool', 'x', '--module', 'src/nope.module.ts')).stderr).toBe(
      'gantry: no module at src/nope.module.ts; pass --module <path> to the module that should provide XTool\n',
    );
    expect(existsSync(join(project, 'src', 'x.tool.ts'))).toBe(false);
  });

  it('refuses outside a project', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'gantry-no-project-'));
    try {
      await expect(generateProvider({ kind: 'tool', name: 'x', cwd: outside })).rejects.toThrow(
        `no package.json in ${outside} or above it; run gantry generate inside a project (gantry new makes one)`,
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
