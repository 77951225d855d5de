import {
  HostOriginPolicy,
  type HostOriginRequest,
  isLoopbackAddress,
  isLoopbackName,
  isLoopbackOrigin,
} from '../src';

describe('isLoopbackAddress (socket addresses)', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::ffff:127.1.2.3',
    '::ffff:7f00:1',
  ])('%s is loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1.evil.com',
    '127.1',
    '0x7f.0.0.1',
    '10.0.0.1',
    '128.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a00:1',
    '1270.0.0.1',
    '::2',
    'localhost',
    '',
    undefined,
  ])('%s is not', (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
});

describe('isLoopbackName (Host and Origin names)', () => {
  it.each(['localhost', '127.0.0.1', '127.8.9.10', '[::1]'])('%s is a loopback name', (name) => {
    expect(isLoopbackName(name)).toBe(true);
  });

  it.each([
    '127.0.0.1.evil.com',
    '127.attacker.example',
    'localhost.evil.com',
    '127.1',
    '0x7f.0.0.1',
    '127.000.0.1',
    '0177.0.0.1',
    '::1',
    '[::ffff:127.0.0.1]',
    'localhost.',
    '',
  ])('%s is not', (name) => {
    expect(isLoopbackName(name)).toBe(false);
  });
});

describe('isLoopbackOrigin', () => {
  it.each(['http://localhost', 'https://127.0.0.1:8443', 'http://[::1]:8080', 'HTTP://LOCALHOST:3000'])(
    '%s is a loopback origin',
    (origin) => {
      expect(isLoopbackOrigin(origin)).toBe(true);
    },
  );

  it.each([
    'http://127.0.0.1.evil.com',
    'https://127.attacker.example',
    'http://127.0.0.1.nip.io:8080',
    'http://localhost.evil.com',
    'http://localhost@evil.com',
    'http://evil.com#@localhost',
    'http://0x7f.0.0.1',
    'ftp://localhost',
    'http://localhost/path',
    'null',
    'localhost',
  ])('%s is not', (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(false);
  });
});

const onLoopback = (host: string | undefined, origin?: string): HostOriginRequest => ({
  host,
  origin,
  localAddress: '127.0.0.1',
  remoteAddress: '127.0.0.1',
});
const offLoopback = (host: string | undefined, origin?: string): HostOriginRequest => ({
  host,
  origin,
  localAddress: '10.0.0.5',
  remoteAddress: '203.0.113.9',
});

describe('HostOriginPolicy with the defaults', () => {
  const policy = new HostOriginPolicy();

  it('accepts loopback names and origins on a loopback connection, in any case', () => {
    expect(policy.problemWith(onLoopback('127.0.0.1:3000', 'http://127.0.0.1:3000'))).toBeUndefined();
    expect(policy.problemWith(onLoopback('LOCALHOST:3000', 'HTTP://LOCALHOST:5173'))).toBeUndefined();
    expect(policy.problemWith(onLoopback('[::1]:3000', 'http://[::1]:8080'))).toBeUndefined();
  });

  it('sees IPv4-mapped and IPv6 loopback sockets as loopback', () => {
    const mapped = {
      host: 'evil.com',
      origin: undefined,
      localAddress: '::ffff:127.0.0.1',
      remoteAddress: '::ffff:127.0.0.1',
    };
    expect(policy.problemWith(mapped)).toMatch(/^Invalid Host: evil\.com/);
    expect(policy.problemWith({ ...mapped, localAddress: '::1', remoteAddress: '::1' })).toMatch(
      /^Invalid Host/,
    );
    // Only the remote end on loopback (a local proxy in front) still counts.
    expect(policy.problemWith({ ...mapped, localAddress: '10.0.0.5', remoteAddress: '127.0.0.1' })).toMatch(
      /^Invalid Host/,
    );
  });

  it.each(['127.0.0.1.evil.com', '127.1', '0x7f.0.0.1', 'localhost.evil.com', 'evil.com:80', 'localhost:x'])(
    'refuses Host %s on a loopback connection, naming the allowedHosts option',
    (host) => {
      expect(policy.problemWith(onLoopback(host))).toBe(
        `Invalid Host: ${host} (allowed on loopback: localhost, 127.0.0.0/8, [::1]; set the allowedHosts option to accept others)`,
      );
    },
  );

  it('refuses a missing Host on a loopback connection', () => {
    expect(policy.problemWith(onLoopback(undefined))).toMatch(
      /^Invalid Host: \(none\) \(allowed on loopback/,
    );
  });

  it.each(['http://127.0.0.1.evil.com', 'https://127.attacker.example', 'http://localhost.evil.com', 'null'])(
    'refuses Origin %s on a loopback connection',
    (origin) => {
      expect(policy.problemWith(onLoopback('localhost', origin))).toBe(`Invalid Origin: ${origin}`);
    },
  );

  it('accepts any Host and Origin off loopback', () => {
    expect(policy.problemWith(offLoopback('mcp.example.com', 'https://elsewhere.example'))).toBeUndefined();
    expect(policy.problemWith(offLoopback(undefined, 'null'))).toBeUndefined();
  });
});

describe('HostOriginPolicy with options', () => {
  it('allowedHosts replaces the loopback names, without case', () => {
    const policy = new HostOriginPolicy({ allowedHosts: ['MCP.example.com'] });
    expect(policy.problemWith(onLoopback('mcp.EXAMPLE.com:443'))).toBeUndefined();
    expect(policy.problemWith(offLoopback('mcp.example.com'))).toBeUndefined();
    expect(policy.problemWith(onLoopback('localhost'))).toBe(
      'Invalid Host: localhost (not in the allowedHosts option)',
    );
    expect(policy.problemWith(offLoopback('other.example'))).toBe(
      'Invalid Host: other.example (not in the allowedHosts option)',
    );
  });

  it('allowedOrigins replaces the loopback origins, applies off loopback too, and never admits null', () => {
    const policy = new HostOriginPolicy({ allowedOrigins: ['https://App.example'] });
    expect(policy.problemWith(onLoopback('localhost', 'https://app.example'))).toBeUndefined();
    expect(policy.problemWith(onLoopback('localhost', 'http://localhost'))).toBe(
      'Invalid Origin: http://localhost',
    );
    expect(policy.problemWith(offLoopback('x', 'https://other.example'))).toBe(
      'Invalid Origin: https://other.example',
    );
    expect(
      new HostOriginPolicy({ allowedOrigins: ['null'] }).problemWith(onLoopback('localhost', 'null')),
    ).toBe('Invalid Origin: null');
  });

  it("allowedOrigins ['*'] turns the Origin check off but not the Host check", () => {
    const policy = new HostOriginPolicy({ allowedOrigins: ['*'] });
    expect(policy.problemWith(onLoopback('localhost', 'https://anything.example'))).toBeUndefined();
    expect(policy.problemWith(onLoopback('evil.com', 'https://anything.example'))).toMatch(/^Invalid Host/);
  });

  it('extraOrigins are accepted besides the defaults and besides allowedOrigins', () => {
    const extra = new HostOriginPolicy({ extraOrigins: ['https://cors.example'] });
    expect(extra.problemWith(onLoopback('localhost', 'https://cors.example'))).toBeUndefined();
    expect(extra.problemWith(onLoopback('localhost', 'http://localhost'))).toBeUndefined();
    expect(extra.problemWith(onLoopback('localhost', 'https://evil.example'))).toBe(
      'Invalid Origin: https://evil.example',
    );
    const both = new HostOriginPolicy({
      allowedOrigins: ['https://app.example'],
      extraOrigins: ['https://cors.example'],
    });
    expect(both.problemWith(offLoopback('x', 'https://cors.example'))).toBeUndefined();
  });

  it('sameOriginOffLoopback: off loopback, only the Host itself or a loopback origin', () => {
    const policy = new HostOriginPolicy({ sameOriginOffLoopback: true });
    expect(policy.problemWith(offLoopback('mcp.example.com', 'https://mcp.example.com'))).toBeUndefined();
    expect(policy.problemWith(offLoopback('mcp.example.com:443', 'https://MCP.example.com'))).toBeUndefined();
    expect(
      policy.problemWith(offLoopback('mcp.example.com:8080', 'http://mcp.example.com:8080')),
    ).toBeUndefined();
    expect(policy.problemWith(offLoopback('mcp.example.com', 'http://localhost:5173'))).toBeUndefined();
    expect(policy.problemWith(offLoopback('mcp.example.com:8080', 'http://mcp.example.com'))).toBe(
      'Invalid Origin: http://mcp.example.com',
    );
    expect(policy.problemWith(offLoopback('mcp.example.com', 'https://evil.example'))).toBe(
      'Invalid Origin: https://evil.example',
    );
    expect(policy.problemWith(offLoopback('mcp.example.com', 'null'))).toBe('Invalid Origin: null');
    expect(policy.problemWith(offLoopback(undefined, 'https://mcp.example.com'))).toBe(
      'Invalid Origin: https://mcp.example.com',
    );
  });

  it('refuses options that are not lists of strings', () => {
    expect(() => new HostOriginPolicy({ allowedHosts: 'localhost' as unknown as string[] })).toThrow(
      'allowedHosts must be an array of strings',
    );
  });
});
