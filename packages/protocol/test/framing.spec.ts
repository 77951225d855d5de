import { encodeLine, LineDecoder, type McpError } from '@gantry/protocol';

function decoder(max?: number) {
  const values: unknown[] = [];
  const errors: McpError[] = [];
  const d = new LineDecoder({ value: (v) => values.push(v), invalid: (e) => errors.push(e) }, max);
  return { d, values, errors };
}

describe('LineDecoder', () => {
  it('decodes several lines in one chunk and a line split byte by byte', () => {
    const { d, values } = decoder();
    d.push(Buffer.from('{"a":1}\n{"b":2}\n'));
    const bytes = Buffer.from('{"c":"é"}\n');
    for (const byte of bytes) d.push(Buffer.from([byte]));
    expect(values).toEqual([{ a: 1 }, { b: 2 }, { c: 'é' }]);
  });

  it('reports an oversized line once, then decodes the next line', () => {
    const { d, values, errors } = decoder(16);
    d.push(Buffer.from('{"x":"0123456789'));
    d.push(Buffer.from('0123456789'));
    d.push(Buffer.from('"}\n{"ok":1}\n'));
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      [-32600, 'Message too large: a line may hold at most 16 bytes'],
    ]);
    expect(values).toEqual([{ ok: 1 }]);
  });

  it('reports an oversized line that arrives whole', () => {
    const { d, values, errors } = decoder(8);
    d.push(Buffer.from('{"x":"0123456789"}\n{"a":2}\n'));
    expect(errors).toHaveLength(1);
    expect(values).toEqual([{ a: 2 }]);
  });

  it('reports invalid JSON and invalid UTF-8 as parse errors', () => {
    const { d, errors } = decoder();
    d.push(Buffer.from('{nope}\n'));
    d.push(Buffer.concat([Buffer.from('"'), Buffer.from([0xff]), Buffer.from('"\n')]));
    expect(errors.map((e) => e.code)).toEqual([-32700, -32700]);
    expect(errors[1].message).toBe('Parse error: the message is not valid UTF-8');
  });

  it('encodes one message per line, escaping newlines inside strings', () => {
    expect(encodeLine({ text: 'a\nb' })).toBe('{"text":"a\\nb"}\n');
  });
});
