import {
  describeSchemaArguments,
  formatCallToolResult,
  formatContentBlock,
  formatPromptResult,
  formatReadResourceResult,
  formatTable,
} from '../src/output';

describe('formatTable', () => {
  it('aligns columns under a header row', () => {
    expect(
      formatTable(
        ['NAME', 'DESCRIPTION'],
        [
          ['get_note', 'Read one note'],
          ['search_notes', 'Search notes'],
        ],
        80,
      ),
    ).toBe(
      ['NAME          DESCRIPTION', 'get_note      Read one note', 'search_notes  Search notes', ''].join(
        '\n',
      ),
    );
  });

  it('cuts the last column with an ellipsis to fit the width', () => {
    const table = formatTable(
      ['NAME', 'DESCRIPTION'],
      [['add', 'Adds two numbers and returns the sum of them']],
      30,
    );
    expect(table.split('\n')[1]).toBe('add   Adds two numbers and re…');
    expect(table.split('\n')[1]).toHaveLength(30);
  });

  it('flattens line breaks in cells', () => {
    expect(formatTable(['A', 'B'], [['x', 'first line\n  second line']], 80)).toBe(
      'A  B\nx  first line second line\n',
    );
  });

  it('cuts an inner column too when it would leave the last one almost no room', () => {
    const long = 'a'.repeat(60);
    const line = formatTable(['URI', 'DESCRIPTION'], [[long, 'the description']], 50).split('\n')[1];
    expect(line).toBe(`${'a'.repeat(31)}…  the description`);
  });
});

describe('describeSchemaArguments', () => {
  it('lists properties, marking the optional ones', () => {
    expect(
      describeSchemaArguments({
        type: 'object',
        properties: { query: {}, tag: {}, limit: {} },
        required: ['query'],
      }),
    ).toBe('query, tag?, limit?');
    expect(describeSchemaArguments({ type: 'object' })).toBe('');
  });
});

describe('content blocks', () => {
  it('shows text as is, and binary data as a placeholder with its size', () => {
    expect(formatContentBlock({ type: 'text', text: 'hello' })).toBe('hello');
    expect(
      formatContentBlock({
        type: 'image',
        mimeType: 'image/png',
        data: Buffer.alloc(1234).toString('base64'),
      }),
    ).toBe('[image image/png, 1234 bytes]');
    expect(
      formatContentBlock({ type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(7).toString('base64') }),
    ).toBe('[audio audio/wav, 7 bytes]');
  });

  it('shows resource links and embedded resources', () => {
    expect(
      formatContentBlock({
        type: 'resource_link',
        uri: 'file:///a.pdf',
        name: 'a',
        mimeType: 'application/pdf',
      }),
    ).toBe('[resource link file:///a.pdf (a, application/pdf)]');
    expect(
      formatContentBlock({
        type: 'resource',
        resource: { uri: 'notes://1', mimeType: 'text/markdown', text: '# One' },
      }),
    ).toBe('[resource notes://1 text/markdown]\n# One');
    expect(formatContentBlock({ type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } })).toBe(
      '[resource file:///b.bin, 3 bytes]',
    );
  });

  it('shows a content type it does not know as its JSON', () => {
    expect(formatContentBlock({ type: 'video', url: 'x' } as never)).toBe('{"type":"video","url":"x"}');
  });
});

describe('formatCallToolResult', () => {
  it('prints each block on its own line', () => {
    expect(
      formatCallToolResult({
        content: [
          { type: 'text', text: 'a chart:' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      }),
    ).toBe('a chart:\n[image image/png, 3 bytes]\n');
  });

  it('pretty-prints structuredContent, without the text block that repeats it', () => {
    const structured = { count: 1, notes: [{ id: 'a' }] };
    expect(
      formatCallToolResult({
        content: [
          { type: 'text', text: JSON.stringify(structured) },
          { type: 'text', text: 'one note' },
        ],
        structuredContent: structured,
      }),
    ).toBe('one note\n{\n  "count": 1,\n  "notes": [\n    {\n      "id": "a"\n    }\n  ]\n}\n');
  });

  it('prints nothing for empty content', () => {
    expect(formatCallToolResult({ content: [] })).toBe('');
  });
});

describe('formatReadResourceResult', () => {
  it('prints a single text as is', () => {
    expect(formatReadResourceResult({ contents: [{ uri: 'notes://index', text: '# Notes\n' }] })).toBe(
      '# Notes\n',
    );
  });

  it('puts a header over each of several contents', () => {
    expect(
      formatReadResourceResult({
        contents: [
          { uri: 'a://1', mimeType: 'text/plain', text: 'one' },
          { uri: 'a://2', mimeType: 'image/png', blob: 'AAAA' },
        ],
      }),
    ).toBe('[resource a://1 text/plain]\none\n[resource a://2 image/png, 3 bytes]\n');
  });
});

describe('formatPromptResult', () => {
  it('prints each message under its role', () => {
    expect(
      formatPromptResult({
        messages: [
          { role: 'user', content: { type: 'text', text: 'Summarize this.' } },
          { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
        ],
      }),
    ).toBe('[user]\nSummarize this.\n\n[assistant]\nSure.\n');
  });
});
