import { randomUUID } from 'node:crypto';
import {
  CapabilityMissingError,
  type ElicitResult,
  GantryError,
  LocalErrorCode,
  Method,
  versionAtLeast,
} from '@gantry/protocol';
import {
  type ArgsValidator,
  checkElicitationSchema,
  compileClassValidator,
  compileJsonSchemaValidator,
  type ElicitationSchema,
  elicitationSchemaFromClass,
  formatIssues,
} from '../schema';
import { DEFAULT_MAX_PARAMS_DEPTH, nestsDeeperThan } from '../server/params-depth';
import type { ClientChannel, SessionInfo } from './context-session';

export interface ElicitOptions {
  /** Time the user has to answer; default the server's request timeout. */
  timeoutMs?: number;
  /**
   * The key of this question in a 2026-07-28 `input_required` result (`inputRequests`), for
   * clients that answer named questions; default one Gantry makes (`elicitation-1`). A
   * non-empty string, not of the form Gantry's own keys take (`elicitation-N`, `sampling-N`,
   * `roots-N`, `url-…`), and unique among the input requests of one round (else the call fails
   * with −32603 naming the key). Sessions and tasks make their own requests and ignore it.
   */
  key?: string;
}

/** The user's answer to a form: the validated DTO on `accept`. */
export type ElicitOutcome<T> =
  | { action: 'accept'; content: T }
  | { action: 'decline' }
  | { action: 'cancel' };

/** The user's answer to a URL elicitation: `accept` means consent to open the URL, not completion. */
export interface UrlElicitOutcome {
  action: 'accept' | 'decline' | 'cancel';
  elicitationId: string;
}

interface FormPlan {
  readonly schema: ElicitationSchema;
  readonly validator: ArgsValidator;
}

/** Per form and protocol version: the schema and validator are built once. */
const plans = new WeakMap<object, Map<string, FormPlan>>();

function planFor(form: object, protocolVersion: string): FormPlan {
  let byVersion = plans.get(form);
  if (!byVersion) {
    byVersion = new Map();
    plans.set(form, byVersion);
  }
  let plan = byVersion.get(protocolVersion);
  if (!plan) {
    if (typeof form === 'function') {
      const context = `Elicitation form ${form.name}`;
      plan = {
        schema: elicitationSchemaFromClass(form, { protocolVersion, context }),
        validator: compileClassValidator(form as new () => unknown, { context }),
      };
    } else {
      const schema = checkElicitationSchema(form, { protocolVersion, context: 'Elicitation schema' });
      plan = { schema, validator: compileJsonSchemaValidator(schema) };
    }
    byVersion.set(protocolVersion, plan);
  }
  return plan;
}

function checkAction(result: ElicitResult): void {
  if (result.action !== 'accept' && result.action !== 'decline' && result.action !== 'cancel') {
    throw new GantryError(
      LocalErrorCode.ProtocolViolation,
      `The client answered elicitation/create with action ${JSON.stringify(result.action)}; expected accept, decline or cancel`,
    );
  }
}

/** `ctx.elicit()`: form mode. */
export async function elicitForm<T>(
  client: ClientChannel,
  session: SessionInfo,
  form: object,
  message: string,
  options: ElicitOptions,
): Promise<ElicitOutcome<T>> {
  const capability = session.clientCapabilities.elicitation;
  // An empty elicitation capability means form mode
  // (MCP 2025-11-25, Client Features / Elicitation §Capabilities).
  const formMode = capability && (capability.form !== undefined || capability.url === undefined);
  if (!formMode) {
    throw client.missing(
      { elicitation: { form: {} } },
      `ctx.elicit(): the client (${session.clientInfo.name}) did not declare form elicitation (capability elicitation.form)`,
    );
  }
  if (!versionAtLeast(session.behaviourVersion, '2025-06-18')) {
    throw new CapabilityMissingError(
      `ctx.elicit(): elicitation needs protocol 2025-06-18 or later; this session uses ${session.protocolVersion}`,
    );
  }
  const plan = planFor(form, session.behaviourVersion >= '2025-11-25' ? '2025-11-25' : '2025-06-18');
  const params: Record<string, unknown> = versionAtLeast(session.behaviourVersion, '2025-11-25')
    ? { mode: 'form', message, requestedSchema: plan.schema }
    : { message, requestedSchema: plan.schema };
  const result = await client.request<ElicitResult>(Method.ElicitationCreate, params, options);
  checkAction(result);
  if (result.action !== 'accept') return { action: result.action };
  // Validation walks the answer recursively: a deep one would overflow the stack. A form
  // answer is flat: primitive values and string arrays
  // (MCP 2025-11-25, Client Features / Elicitation §Requested Schema).
  if (nestsDeeperThan(result.content, DEFAULT_MAX_PARAMS_DEPTH)) {
    throw new GantryError(
      LocalErrorCode.ElicitationInvalid,
      `The answer to the elicitation "${message}" is invalid: it nests deeper than ${DEFAULT_MAX_PARAMS_DEPTH} levels`,
    );
  }
  const outcome = await plan.validator.validate(result.content ?? {});
  if (!outcome.ok) {
    throw new GantryError(
      LocalErrorCode.ElicitationInvalid,
      `The answer to the elicitation "${message}" is invalid: ${formatIssues(outcome.issues)}`,
    );
  }
  return { action: 'accept', content: outcome.value as T };
}

/**
 * `ctx.elicitUrl()`: URL mode (MCP 2025-11-25, Client Features / Elicitation). The channel
 * carries the `elicitationId` as its era has it: a session sends it and remembers who started
 * the flow; a stateless request (2026-07-28) has none on the wire.
 */
export async function elicitUrl(
  client: ClientChannel,
  session: SessionInfo,
  url: string,
  message: string,
  options: { elicitationId?: string; timeoutMs?: number; key?: string },
): Promise<UrlElicitOutcome> {
  if (!session.clientCapabilities.elicitation?.url) {
    throw client.missing(
      { elicitation: { url: {} } },
      `ctx.elicitUrl(): the client (${session.clientInfo.name}) did not declare URL elicitation (capability elicitation.url, 2025-11-25)`,
    );
  }
  try {
    new URL(url);
  } catch {
    throw new TypeError(`ctx.elicitUrl(): ${JSON.stringify(url)} is not a valid URL`);
  }
  const elicitationId = options.elicitationId ?? randomUUID();
  const result = await client.request<ElicitResult>(
    Method.ElicitationCreate,
    { mode: 'url', message, url, elicitationId },
    { timeoutMs: options.timeoutMs, key: options.key },
  );
  checkAction(result);
  return { action: result.action, elicitationId };
}
