// nginxConfig(): the page that shows its output (docs/deploy.md) shows exactly that output, its
// options change what they say, and what cannot be written into nginx.conf is refused.
// The configuration itself is exercised against a real nginx in nginx.int.spec.ts.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { nginxConfig } from '@gantry/redis';

const DOCS_OPTIONS = {
  listen: 80,
  serverName: 'mcp.example.com',
  upstreams: ['http://10.0.0.5:3000', 'http://10.0.0.6:3000', 'http://10.0.0.7:3000'],
};

describe('nginxConfig', () => {
  it('is what docs/deploy.md shows for the options of its example', () => {
    const page = readFileSync(resolve(__dirname, '../../../docs/deploy.md'), 'utf8');
    const blocks = [...page.matchAll(/^```nginx\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
    expect(blocks).toEqual([nginxConfig(DOCS_OPTIONS)]);
    // The page's example passes the same options.
    expect(page).toContain("serverName: 'mcp.example.com',");
    expect(page).toContain(
      "  upstreams: ['http://10.0.0.5:3000', 'http://10.0.0.6:3000', 'http://10.0.0.7:3000'],",
    );
  });

  it('takes upstreams with or without http://, and applies each option', () => {
    const config = nginxConfig({
      listen: '443 ssl',
      upstreams: ['127.0.0.1:3001', 'http://[::1]:3002'],
      location: '/mcp',
      upstreamName: 'notes',
      maxBodyBytes: 1536,
      readTimeoutSec: 90,
      maxFails: 3,
      failTimeoutSec: 30,
      keepalive: 8,
    });
    expect(config).toContain('upstream notes {\n');
    expect(config).toContain('    server 127.0.0.1:3001 max_fails=3 fail_timeout=30s;\n');
    expect(config).toContain('    server [::1]:3002 max_fails=3 fail_timeout=30s;\n');
    expect(config).toContain('    keepalive 8;\n');
    expect(config).toContain('    listen 443 ssl;\n');
    expect(config).not.toContain('server_name');
    expect(config).toContain('    client_max_body_size 1536;\n');
    expect(config).toContain('    location /mcp {\n        proxy_pass http://notes;\n');
    expect(config).toContain('        proxy_read_timeout 90s;\n');
    expect(nginxConfig({ listen: 8080, upstreams: ['127.0.0.1:1'], maxBodyBytes: 512 * 1024 })).toContain(
      'client_max_body_size 512k;',
    );
  });

  it('refuses what it cannot write into nginx.conf, naming the option', () => {
    const upstreams = ['http://127.0.0.1:3000'];
    expect(() => nginxConfig({ listen: 80, upstreams: [] })).toThrow(
      'nginxConfig: upstreams must list at least one node (http://host:port)',
    );
    expect(() => nginxConfig({ listen: 80, upstreams: ['https://10.0.0.5:3000'] })).toThrow(
      'nginxConfig: upstream "https://10.0.0.5:3000" must be http://',
    );
    expect(() => nginxConfig({ listen: 80, upstreams: ['http://10.0.0.5'] })).toThrow(
      'must be a host and an explicit port, with no path',
    );
    expect(() => nginxConfig({ listen: 80, upstreams: ['http://10.0.0.5:3000/mcp'] })).toThrow(
      'must be a host and an explicit port, with no path',
    );
    expect(() => nginxConfig({ listen: '80; include /etc/passwd', upstreams })).toThrow(
      'nginxConfig: listen "80;" cannot be written into nginx.conf',
    );
    expect(() => nginxConfig({ listen: 80, upstreams, serverName: 'a.example.com}' })).toThrow(
      'nginxConfig: serverName "a.example.com}" cannot be written into nginx.conf',
    );
    expect(() => nginxConfig({ listen: 80, upstreams, location: '/ {' })).toThrow('nginxConfig: location');
    expect(() => nginxConfig({ listen: 70000, upstreams })).toThrow(
      'nginxConfig: listen must be a port (1-65535)',
    );
    expect(() => nginxConfig({ listen: 80, upstreams, readTimeoutSec: 0 })).toThrow(
      'nginxConfig: readTimeoutSec must be a positive integer, got 0',
    );
    expect(() => nginxConfig({ listen: 80, upstreams, maxFails: -1 })).toThrow(
      'nginxConfig: maxFails must be a non-negative integer, got -1',
    );
  });
});
