import { SseEvent, SseParser } from '@gantry/client';
import { GantryError } from '@gantry/protocol';

/** Feeds every chunk, then ends the stream; returns all events and the parser's final state. */
function parse(chunks: (string | Uint8Array)[], parser = new SseParser()) {
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  parser.end();
  return { events, lastEventId: parser.lastEventId, retry: parser.retry };
}

const bytes = (...values: number[]) => Uint8Array.from(values);
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('SseParser: byte streams to events (WHATWG "Interpreting an event stream")', () => {
  const table: [string, (string | Uint8Array)[], SseEvent[]][] = [
    ['one data line', ['data: hello\n\n'], [{ data: 'hello' }]],
    ['several data lines joined with \\n', ['data: a\ndata: b\ndata:c\n\n'], [{ data: 'a\nb\nc' }]],
    ['only one leading space is removed', ['data:  two spaces\n\n'], [{ data: ' two spaces' }]],
    [
      'an event type',
      ['event: endpoint\ndata: /messages?sessionId=1\n\n'],
      [{ event: 'endpoint', data: '/messages?sessionId=1' }],
    ],
    [
      'an empty data field gives an empty event (the priming event)',
      ['id: 7\ndata: \n\n'],
      [{ data: '', id: '7' }],
    ],
    ['a field without a colon is a field with an empty value', ['data\n\n'], [{ data: '' }]],
    ['comments are ignored', [': keepalive\n\n:x\ndata: y\n\n'], [{ data: 'y' }]],
    ['unknown fields are ignored', ['foo: bar\ndata: z\n\n'], [{ data: 'z' }]],
    ['a block without data is not dispatched', ['event: ping\n\nid: 3\n\n'], []],
    ['CRLF line endings', ['data: a\r\ndata: b\r\n\r\n'], [{ data: 'a\nb' }]],
    ['CR line endings', ['data: a\rdata: b\r\r'], [{ data: 'a\nb' }]],
    ['mixed line endings', ['data: a\r\ndata: b\rdata: c\n\n'], [{ data: 'a\nb\nc' }]],
    ['a CRLF split between chunks is one line end', ['data: a\r', '\n\r', '\n'], [{ data: 'a' }]],
    ['a CR at a chunk end followed by a new line', ['data: a\r', 'data: b\r\r'], [{ data: 'a\nb' }]],
    ['a line split across chunks', ['da', 'ta: he', 'llo\n', '\n'], [{ data: 'hello' }]],
    ['a leading BOM is skipped', ['\ufeffdata: x\n\n'], [{ data: 'x' }]],
    ['only the first BOM is skipped', ['\ufeff\ufeffdata: x\n\ndata: y\n\n'], [{ data: 'y' }]],
    ['a BOM as bytes', [bytes(0xef, 0xbb, 0xbf), utf8('data: x\n\n')], [{ data: 'x' }]],
    [
      'a BOM split across byte chunks',
      [bytes(0xef), bytes(0xbb), bytes(0xbf, 0x64), utf8('ata: x\n\n')],
      [{ data: 'x' }],
    ],
    [
      'a UTF-8 character split across chunks',
      [bytes(0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xc3), bytes(0xa9, 0x0a, 0x0a)],
      [{ data: 'é' }],
    ],
    [
      'a 4-byte UTF-8 character split three ways',
      [utf8('data: '), bytes(0xf0, 0x9f), bytes(0x98), bytes(0x80, 0x0a, 0x0a)],
      [{ data: '😀' }],
    ],
    [
      'invalid UTF-8 becomes U+FFFD',
      [bytes(0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a)],
      [{ data: '\ufffd' }],
    ],
    [
      'the id persists across events',
      ['id: 1\ndata: a\n\ndata: b\n\n'],
      [
        { data: 'a', id: '1' },
        { data: 'b', id: '1' },
      ],
    ],
    [
      'an empty id field resets the last event id',
      ['id: 1\ndata: a\n\nid\ndata: b\n\n'],
      [{ data: 'a', id: '1' }, { data: 'b' }],
    ],
    [
      'an id holding NUL is ignored',
      ['id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n'],
      [
        { data: 'a', id: '1' },
        { data: 'b', id: '1' },
      ],
    ],
    ['retry with digits only', ['retry: 2500\ndata: a\n\n'], [{ data: 'a', retry: 2500 }]],
    [
      'retry with anything but digits is ignored',
      ['retry: 25ms\ndata: a\n\nretry: -1\ndata: b\n\nretry:\ndata: c\n\n'],
      [{ data: 'a' }, { data: 'b' }, { data: 'c' }],
    ],
    [
      'retry only on the event whose block set it',
      ['retry: 10\ndata: a\n\ndata: b\n\n'],
      [{ data: 'a', retry: 10 }, { data: 'b' }],
    ],
    [
      'the event type resets after each event',
      ['event: x\ndata: a\n\ndata: b\n\n'],
      [{ event: 'x', data: 'a' }, { data: 'b' }],
    ],
    ['an event cut off by the end of the stream is dropped', ['data: a\n\ndata: b\n'], [{ data: 'a' }]],
    ['a last line without its line end is dropped', ['data: a\n\ndata: b'], [{ data: 'a' }]],
    ['field names are case-sensitive', ['Data: a\nDATA: b\ndata: c\n\n'], [{ data: 'c' }]],
    ['a colon in the value is kept', ['data: {"a":"b:c"}\n\n'], [{ data: '{"a":"b:c"}' }]],
    [
      'the SDK framing of a JSON-RPC message',
      ['event: message\nid: s1_2\ndata: {"jsonrpc":"2.0","id":0,"result":{}}\n\n'],
      [{ event: 'message', id: 's1_2', data: '{"jsonrpc":"2.0","id":0,"result":{}}' }],
    ],
  ];

  it.each(table)('%s', (_name, chunks, expected) => {
    expect(parse(chunks).events).toEqual(expected);
  });

  it('gives the same events however a stream is cut into bytes', () => {
    const stream = utf8('\ufeffevent: e\r\nid: 9\r\ndata: é😀\r\ndata: 2\r\r: c\nretry: 5\ndata: z\n\n');
    const whole = parse([stream]).events;
    expect(whole).toEqual([
      { event: 'e', id: '9', data: 'é😀\n2' },
      { id: '9', retry: 5, data: 'z' },
    ]);
    for (let size = 1; size <= 7; size++) {
      const chunks: Uint8Array[] = [];
      for (let offset = 0; offset < stream.length; offset += size)
        chunks.push(stream.subarray(offset, offset + size));
      expect(parse(chunks).events).toEqual(whole);
    }
  });
});

describe('SseParser state for reconnection', () => {
  it('takes the last event id from a block without data (it is set, though nothing is dispatched)', () => {
    const result = parse(['data: a\n\nid: 42\n\n']);
    expect(result.events).toEqual([{ data: 'a' }]);
    expect(result.lastEventId).toBe('42');
  });

  it('does not take the id of an event cut off by the end of the stream', () => {
    expect(parse(['id: 1\ndata: a\n\nid: 2\ndata: b\n']).lastEventId).toBe('1');
  });

  it('keeps the latest valid retry, set as soon as the field is read', () => {
    const parser = new SseParser();
    parser.push('retry: 100\n\nretry: 250\n');
    expect(parser.retry).toBe(250);
    parser.push('retry: soon\n\n');
    expect(parser.retry).toBe(250);
  });

  it('starts from a last event id carried over from an earlier connection', () => {
    const parser = new SseParser({ lastEventId: 'prev' });
    expect(parser.lastEventId).toBe('prev');
    expect(parser.push('data: a\n\n')).toEqual([{ data: 'a', id: 'prev' }]);
  });

  it('has no last event id and no retry before any event', () => {
    const parser = new SseParser();
    expect(parser.lastEventId).toBe('');
    expect(parser.retry).toBeUndefined();
  });
});

describe('SseParser limits', () => {
  it('refuses an event larger than maxEventChars with GANTRY_ERR_MESSAGE_TOO_LARGE', () => {
    const parser = new SseParser({ maxEventChars: 10 });
    expect(parser.push('data: 12345\n')).toEqual([]);
    const error = (() => {
      try {
        parser.push('data: 67890\n');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(GantryError);
    expect(error).toMatchObject({ code: 'GANTRY_ERR_MESSAGE_TOO_LARGE' });
  });

  it('refuses an unfinished line that grows past the limit', () => {
    const parser = new SseParser({ maxEventChars: 8 });
    parser.push('data: 12');
    expect(() => parser.push('3456789')).toThrow('Server-sent event too large');
  });

  it('accepts events right at the limit', () => {
    const parser = new SseParser({ maxEventChars: 5 });
    expect(parser.push('data: 12345\n\n')).toEqual([{ data: '12345' }]);
  });
});
