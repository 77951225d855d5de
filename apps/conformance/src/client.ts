// The fixture client of the official MCP conformance suite (`conformance client --command
// "node apps/conformance/dist/client.js"`), written with @gantry/client alone. The suite runs
// it once per scenario: the scenario's name in MCP_CONFORMANCE_SCENARIO, the URL of the
// suite's test server as the last argument, and for some auth scenarios a JSON context in
// MCP_CONFORMANCE_CONTEXT. Exit 0 when the scenario's steps succeeded, 1 (error on stderr)
// otherwise.
import { Client, connectHttp } from '@gantry/client';
import { type AuthScenarioContext, runAuthScenario } from './client-auth';

const CLIENT_INFO = { name: 'gantry-conformance-client', version: '0.1.0' };

/** A connected client for one scenario; the caller closes it. */
async function connected(url: string, client = new Client(CLIENT_INFO)): Promise<Client> {
  await connectHttp(client, url);
  return client;
}

/** Runs `steps` with a connected client and closes it whatever happened. */
async function withClient(url: string, steps: (client: Client) => Promise<void>, client?: Client) {
  const connectedClient = await connected(url, client);
  try {
    await steps(connectedClient);
  } finally {
    await connectedClient.close();
  }
}

/** The tool named `name` must be listed: the suite's servers list what they expect called. */
async function callListedTool(client: Client, name: string, args?: { [key: string]: unknown }) {
  const tools = await client.listTools();
  if (!tools.some((tool) => tool.name === name)) {
    throw new Error(`the server lists no tool "${name}" (it lists: ${tools.map((t) => t.name).join(', ')})`);
  }
  const result = await client.callTool(name, args);
  if (result.isError) throw new Error(`tool "${name}" failed: ${JSON.stringify(result.content)}`);
  return result;
}

/** The non-auth scenarios, by name (the names `conformance list` prints). */
const SCENARIOS: { readonly [name: string]: (url: string) => Promise<void> } = {
  // MCP 2025-11-25, Basic › Lifecycle §Initialization: initialize, then initialized.
  initialize: (url) => withClient(url, async () => {}),
  tools_call: (url) =>
    withClient(url, async (client) => {
      await callListedTool(client, 'add_numbers', { a: 5, b: 3 });
    }),
  // SEP-1034 (MCP 2025-11-25, Client › Elicitation): the handler accepts without filling a
  // single field; the Client completes the content with the requested schema's defaults.
  'elicitation-sep1034-client-defaults': (url) => {
    const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: {} }));
    return withClient(
      url,
      async (connectedClient) => {
        await callListedTool(connectedClient, 'test_client_elicitation_defaults');
      },
      client,
    );
  },
  // SEP-1699 (MCP 2025-11-25, Basic › Transports §Resumability and Redelivery): the tool's
  // SSE stream closes before the result; the transport resumes it with GET + Last-Event-ID
  // after the server's `retry` delay, and the result arrives there.
  'sse-retry': (url) =>
    withClient(url, async (client) => {
      await callListedTool(client, 'test_reconnection');
    }),
};

/** The JSON of MCP_CONFORMANCE_CONTEXT, if set. */
function scenarioContext(): AuthScenarioContext | undefined {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new Error(`MCP_CONFORMANCE_CONTEXT is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`MCP_CONFORMANCE_CONTEXT must be a JSON object, got ${raw.slice(0, 100)}`);
  }
  return parsed as AuthScenarioContext;
}

/** Runs the scenario the suite named; rejects with what went wrong. */
export async function runScenario(scenario: string | undefined, url: string | undefined): Promise<void> {
  if (!scenario) {
    throw new Error('MCP_CONFORMANCE_SCENARIO is not set: run this client through `conformance client`');
  }
  if (!url || !/^https?:\/\//.test(url)) {
    throw new Error(
      `the last argument must be the server's http(s) URL, got ${JSON.stringify(url ?? '(none)')}`,
    );
  }
  if (scenario.startsWith('auth/')) return runAuthScenario(scenario, url, scenarioContext());
  const run = SCENARIOS[scenario];
  if (!run) {
    throw new Error(
      `unknown scenario "${scenario}": this client runs ${Object.keys(SCENARIOS).join(', ')} and auth/*`,
    );
  }
  await run(url);
}

if (require.main === module) {
  const args = process.argv.slice(2);
  runScenario(process.env.MCP_CONFORMANCE_SCENARIO, args[args.length - 1]).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `conformance client (${process.env.MCP_CONFORMANCE_SCENARIO ?? 'no scenario'}): ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
