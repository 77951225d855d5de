// The `auth/*` scenarios of the conformance client suite (OAuth 2.1 authorization, MCP
// 2025-11-25, Basic › Authorization). Wired by the OAuth client; until then every one fails.

/**
 * What the suite hands an auth scenario in `MCP_CONFORMANCE_CONTEXT` (only some scenarios
 * set it: pre-registration and client credentials), parsed from JSON.
 */
export type AuthScenarioContext = { readonly [key: string]: unknown };

/**
 * Runs one `auth/*` scenario against the suite's server at `url`; resolves when the client
 * did what the scenario asks, rejects otherwise.
 */
export async function runAuthScenario(
  scenario: string,
  url: string,
  context: AuthScenarioContext | undefined,
): Promise<void> {
  void scenario;
  void url;
  void context;
  throw new Error('auth scenarios: not wired yet');
}
