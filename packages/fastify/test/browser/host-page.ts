// The test host page: host.js bundled for the browser with esbuild (AppBridge from ext-apps and
// the MCP client have bare imports a browser cannot resolve), served by a plain node:http server
// on a free loopback port, on an origin of its own (so the Gantry endpoint is cross-origin and
// must allow it through CORS).

import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';

/** Bundles host.js and its imports into one browser ES module in `outDir`; returns its text. */
export async function bundleHost(outDir: string): Promise<string> {
  const outfile = join(outDir, 'host.bundle.js');
  await build({
    entryPoints: [join(__dirname, 'host.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile,
    logLevel: 'silent',
  });
  return readFile(outfile, 'utf8');
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Gantry MCP Apps test host</title>
<link rel="icon" href="data:,">
<style>
  body { font: 14px system-ui, sans-serif; margin: 16px; background: #f4f4f6; }
  #frame iframe { width: 520px; min-height: 200px; border: 2px solid #446; border-radius: 8px; background: white; }
  #error { color: #b00; white-space: pre-wrap; }
</style>
</head>
<body>
<h1>MCP Apps test host</h1>
<div id="frame"></div>
<p>Events: <span id="log"></span></p>
<p id="error"></p>
<script type="module" src="/host.js"></script>
</body>
</html>
`;

export interface HostPage {
  /** `http://127.0.0.1:<port>`: the origin the Gantry endpoint must allow. */
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves the page at `/` and the bundle at `/host.js`; anything else is 404. */
export async function serveHostPage(bundle: string): Promise<HostPage> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://host').pathname;
    if (request.method === 'GET' && path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (request.method === 'GET' && path === '/host.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle);
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
