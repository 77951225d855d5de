// A minimal MCP Apps host for the browser test (MCP Apps 2026-01-26, "Host ↔ View
// communication"). esbuild bundles this file with its imports; the page loads it as a module
// with `?mcp=<endpoint>&tool=<name>&query=<text>`. It connects an MCP client over Streamable
// HTTP, reads the tool's `ui://` resource, renders it in a sandboxed iframe under the spec's
// default CSP, bridges the iframe to the server with AppBridge, and sends the tool's input and
// result once the view has initialized. `window.hostEvents` records what happened, for the test.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';

/** The CSP a host MUST apply when the resource declares none (MCP Apps 2026-01-26, "Security"). */
const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'";

const events = [];
window.hostEvents = events;
const record = (event) => {
  events.push(event);
  document.getElementById('log').textContent = events.map((e) => e.type).join(' → ');
};

/** Puts the CSP first in the document's head, so it governs every script of the view. */
function withCsp(html) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (!head) throw new Error('The UI resource has no <head>: it is not a full HTML5 document');
  const at = head.index + head[0].length;
  return html.slice(0, at) + meta + html.slice(at);
}

async function main() {
  const params = new URLSearchParams(location.search);
  const endpoint = params.get('mcp');
  const toolName = params.get('tool');
  if (!endpoint || !toolName) throw new Error('The host page needs ?mcp=<endpoint>&tool=<name>');
  const toolArguments = { query: params.get('query') ?? '' };
  // `legacy`: the 2025-11-25 session (initialize); `pin`: the stateless 2026-07-28 era.
  const era = params.get('era') ?? 'legacy';
  if (era !== 'legacy' && era !== 'pin') throw new Error(`era must be legacy or pin, not ${era}`);

  const client = new Client(
    { name: 'gantry-browser-host', version: '1.0.0' },
    {
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      versionNegotiation: { mode: era === 'pin' ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  record({ type: 'connected', protocolVersion: client.getNegotiatedProtocolVersion() });

  const { tools } = await client.listTools();
  record({ type: 'tools', tools: tools.map((t) => ({ name: t.name, _meta: t._meta })) });
  const tool = tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`The server has no tool ${toolName}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`The tool ${toolName} names no ui:// resource`);
  const { contents } = await client.readResource({ uri });
  const html = contents.find((c) => c.uri === uri && c.mimeType === RESOURCE_MIME_TYPE && 'text' in c);
  if (!html) throw new Error(`resources/read ${uri} returned no ${RESOURCE_MIME_TYPE} text`);
  record({ type: 'resource', uri });

  // No allow-same-origin: the srcdoc document gets an opaque origin, so it cannot reach the
  // host page's DOM, storage or cookies; it talks only through postMessage.
  const iframe = document.createElement('iframe');
  iframe.id = 'view';
  iframe.title = tool.title ?? tool.name;
  iframe.setAttribute('sandbox', 'allow-scripts');
  document.getElementById('frame').append(iframe);

  const bridge = new AppBridge(
    client,
    { name: 'gantry-browser-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', locale: 'en-US' } },
  );
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  bridge.oninitialized = async () => {
    record({ type: 'initialized', app: bridge.getAppVersion() });
    try {
      await bridge.sendToolInput({ arguments: toolArguments });
      const result = await client.callTool({ name: tool.name, arguments: toolArguments });
      await bridge.sendToolResult(result);
      record({ type: 'tool-result-sent', result });
    } catch (error) {
      fail(error);
    }
  };
  // The WindowProxy stays the same across the iframe's navigation, so the transport can listen
  // before the view's document exists: the view's first message (ui/initialize) is not missed.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // connect() forwards every tools/call of the view to the server; the host MUST reject a call
  // to a tool whose visibility lacks "app" (MCP Apps 2026-01-26, "Tool Visibility").
  bridge.oncalltool = async (call, extra) => {
    const target = tools.find((t) => t.name === call.name);
    const visibility = target?._meta?.ui?.visibility ?? ['model', 'app'];
    if (!target || !visibility.includes('app')) {
      record({ type: 'app-call-refused', name: call.name });
      throw new Error(`The view may not call ${call.name}: it is not visible to apps`);
    }
    record({ type: 'app-call', name: call.name, arguments: call.arguments });
    return client.callTool(call, { signal: extra?.mcpReq?.signal });
  };
  iframe.srcdoc = withCsp(html.text);
}

function fail(error) {
  record({ type: 'error', message: String(error?.stack ?? error) });
  document.getElementById('error').textContent = String(error?.message ?? error);
}

main().catch(fail);
