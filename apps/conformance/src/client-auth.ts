// The `auth/*` scenarios of the conformance client suite (OAuth 2.1 authorization, MCP
// 2025-11-25, Basic › Authorization; SEP-990 for cross-app access): one `@gantry/client`
// auth strategy per scenario family, then what every scenario asks of a client: connect, list
// the tools, call one.
import {
  Client,
  clientCredentials,
  connectHttp,
  crossAppAccess,
  headlessInteraction,
  type McpAuth,
  oauth,
} from '@gantry/client';

/**
 * What the suite hands an auth scenario in `MCP_CONFORMANCE_CONTEXT` (only some scenarios
 * set it: pre-registration, client credentials and cross-app access), parsed from JSON.
 */
export type AuthScenarioContext = { readonly [key: string]: unknown };

/**
 * The Client ID Metadata Document URL the suite's authorization server expects as `client_id`
 * in `auth/basic-cimd` (it checks the shape, it does not fetch it).
 */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

function field(context: AuthScenarioContext | undefined, name: string, scenario: string): string {
  const value = context?.[name];
  if (typeof value !== 'string' || value === '') {
    throw new Error(`${scenario}: MCP_CONFORMANCE_CONTEXT has no string "${name}"`);
  }
  return value;
}

function strategyFor(scenario: string, context: AuthScenarioContext | undefined): McpAuth {
  const get = (name: string) => field(context, name, scenario);
  switch (scenario) {
    case 'auth/client-credentials-jwt': {
      const algorithm = context?.signing_algorithm;
      return clientCredentials({
        clientId: get('client_id'),
        privateKey: {
          pem: get('private_key_pem'),
          algorithm: typeof algorithm === 'string' ? algorithm : undefined,
        },
      });
    }
    case 'auth/client-credentials-basic':
      return clientCredentials({ clientId: get('client_id'), clientSecret: get('client_secret') });
    case 'auth/cross-app-access-complete-flow':
      return crossAppAccess({
        clientId: get('client_id'),
        clientSecret: get('client_secret'),
        idp: {
          tokenEndpoint: get('idp_token_endpoint'),
          clientId: get('idp_client_id'),
          idToken: get('idp_id_token'),
        },
      });
    case 'auth/pre-registration':
      return oauth({
        interaction: headlessInteraction(),
        client: { clientId: get('client_id'), clientSecret: get('client_secret') },
      });
    default:
      // The authorization code scenarios: discovery, registration (CIMD when offered, else
      // DCR), PKCE, scopes, step-up, token endpoint authentication, back-compat.
      return oauth({
        interaction: headlessInteraction(),
        clientName: 'gantry-conformance-client',
        clientMetadataUrl: CLIENT_METADATA_URL,
      });
  }
}

/**
 * Runs one `auth/*` scenario against the suite's server at `url`; resolves when the client
 * did what the scenario asks, rejects otherwise (some scenarios, e.g. `auth/resource-mismatch`,
 * expect exactly that).
 */
export async function runAuthScenario(
  scenario: string,
  url: string,
  context: AuthScenarioContext | undefined,
): Promise<void> {
  const client = new Client({ name: 'gantry-conformance-client', version: '1.0.0' });
  try {
    await connectHttp(client, url, { auth: strategyFor(scenario, context) });
    // The auth scenarios' servers list one tool; the step-up ones refuse it until the token has the scope.
    const [tool] = await client.listTools();
    if (tool !== undefined) await client.callTool(tool.name, {});
  } finally {
    await client.close();
  }
}
