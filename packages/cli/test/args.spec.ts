import {
  parseArgsJson,
  parsePromptArguments,
  parseToolArguments,
  stringArgumentMismatches,
} from '../src/args';
import { CliError } from '../src/cli-error';
import { ExitCode } from '../src/exit-codes';

function failure(fn: () => unknown): CliError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected a CliError');
}

describe('gantry call -a key=value', () => {
  it('parses values as JSON when they parse, and keeps them as strings otherwise', () => {
    expect(
      parseToolArguments(undefined, [
        'count=3',
        'ratio=0.5',
        'draft=true',
        'gone=null',
        'tags=["a","b"]',
        'where={"tag":"x"}',
        'title=hello world',
        'zip=007',
        'version=1.2.3',
        'id="123"',
        'empty=',
      ]),
    ).toEqual({
      count: 3,
      ratio: 0.5,
      draft: true,
      gone: null,
      tags: ['a', 'b'],
      where: { tag: 'x' },
      title: 'hello world',
      zip: '007',
      version: '1.2.3',
      id: '123',
      empty: '',
    });
  });

  it('splits at the first =, so values may contain =', () => {
    expect(parseToolArguments(undefined, ['query=a=b'])).toEqual({ query: 'a=b' });
  });

  it('nests on dots in the key', () => {
    expect(parseToolArguments(undefined, ['filter.tag=work', 'filter.limit=5', 'a.b.c=true'])).toEqual({
      filter: { tag: 'work', limit: 5 },
      a: { b: { c: true } },
    });
  });

  it('applies -a on top of --args', () => {
    expect(
      parseToolArguments('{"query":"x","limit":10,"filter":{"tag":"a"}}', ['limit=5', 'filter.draft=true']),
    ).toEqual({
      query: 'x',
      limit: 5,
      filter: { tag: 'a', draft: true },
    });
  });

  it('makes __proto__ an ordinary key, as JSON.parse does', () => {
    const args = parseToolArguments(undefined, ['__proto__.polluted=1']);
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('refuses a pair without = or with an empty key part (exit 2)', () => {
    for (const pair of ['query', '=x', 'a..b=1', '.a=1']) {
      const error = failure(() => parseToolArguments(undefined, [pair]));
      expect(error.exitCode).toBe(ExitCode.Usage);
      expect(error.message).toBe(`-a needs key=value, got ${JSON.stringify(pair)}`);
    }
  });

  it('refuses the same key twice, and a key that would replace a nested one', () => {
    expect(failure(() => parseToolArguments(undefined, ['a=1', 'a=2'])).message).toBe('-a a is given twice');
    expect(failure(() => parseToolArguments(undefined, ['a.b=1', 'a=2'])).message).toBe(
      '-a a would replace the object that -a a.b sets',
    );
    expect(failure(() => parseToolArguments(undefined, ['a=2', 'a.b=1'])).message).toBe(
      '-a a.b: a is already set to 2, not an object',
    );
  });
});

describe('gantry call --args', () => {
  it('names the JSON problem and the text, with exit code 2', () => {
    const error = failure(() => parseArgsJson('{"query": x}'));
    expect(error.exitCode).toBe(ExitCode.Usage);
    expect(error.message).toMatch(/^--args is not valid JSON \(Unexpected token .*\): \{"query": x\}$/);
  });

  it('refuses JSON that is not an object', () => {
    expect(failure(() => parseArgsJson('[1]')).message).toBe(
      `--args must be a JSON object such as '{"query":"x"}', got an array`,
    );
    expect(failure(() => parseArgsJson('null')).message).toMatch(/got null$/);
    expect(failure(() => parseArgsJson('"x"')).message).toMatch(/got a string$/);
  });
});

describe('gantry prompt -a key=value', () => {
  it('keeps every value a string, since prompt arguments are strings', () => {
    expect(parsePromptArguments(['id=123', 'flag=true', 'a.b=c'])).toEqual({
      id: '123',
      flag: 'true',
      'a.b': 'c',
    });
  });

  it('refuses a key given twice', () => {
    expect(failure(() => parsePromptArguments(['id=1', 'id=2'])).message).toBe('-a id is given twice');
  });
});

describe('stringArgumentMismatches (-a read as JSON where the schema wants a string)', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[a-z0-9]+$' },
      count: { type: 'integer' },
      label: { type: ['string', 'null'] },
      code: { type: ['string', 'number'] },
      filter: { type: 'object', properties: { tag: { type: 'string' } } },
      anything: {},
    },
  };

  it('reports -a name=42 against a string argument as one usage error, with the quoting to use', () => {
    const error = stringArgumentMismatches(['name=42'], schema);
    expect(error).toBeInstanceOf(CliError);
    expect(error?.exitCode).toBe(ExitCode.Usage);
    expect(error?.message).toBe(
      `-a name=42: "name" is a string, but 42 reads as JSON (a number); quote it to send the text: -a 'name="42"'`,
    );
  });

  it('gives one line per mismatched argument, nested keys included', () => {
    expect(stringArgumentMismatches(['name=true', 'count=3', 'filter.tag=[1]'], schema)?.message).toBe(
      [
        `-a name=true: "name" is a string, but true reads as JSON (a boolean); quote it to send the text: -a 'name="true"'`,
        `-a filter.tag=[1]: "filter.tag" is a string, but [1] reads as JSON (an array); quote it to send the text: -a 'filter.tag="[1]"'`,
      ].join('\n'),
    );
  });

  it('finds nothing when the value is a string, or the schema accepts what it reads as', () => {
    expect(stringArgumentMismatches(['name=abc', 'name2="42"'], schema)).toBeUndefined();
    expect(
      stringArgumentMismatches(['count=3', 'label=null', 'code=42', 'anything=1', 'unknown=1'], schema),
    ).toBeUndefined();
    expect(stringArgumentMismatches(['label=5'], schema)?.message).toMatch(
      /^-a label=5: "label" is a string/,
    );
  });

  it('finds nothing without a usable schema', () => {
    expect(stringArgumentMismatches(['name=42'], undefined)).toBeUndefined();
    expect(stringArgumentMismatches(['name=42'], { type: 'object' })).toBeUndefined();
  });
});
