import type { Logger } from '../logger';

/**
 * Whether this process already warned that a random key signs `requestState`. One warning per
 * process is enough: every listener, app and in-process restart that follows has the same
 * problem and the same fix, and repeating it only buries other output.
 */
let warned = false;

/** What to do about it, so the warning is the whole answer. */
export const EPHEMERAL_KEY_WARNING =
  'No requestState key is configured, so stateless-era (2026-07-28) input_required rounds are signed with a random key of this server: ' +
  'a retry that reaches another node, or this one after a restart, is refused with -32602. ' +
  'If more than one node serves this app (behind a load balancer), give every node the same secret of at least 32 bytes ' +
  'in the GANTRY_STATE_KEY environment variable or in GantryFactory.create(module, { stateless: { requestStateKey } }). ' +
  'This warning is shown once per process.';

/** Writes the warning to `logger` unless this process wrote it before. */
export function warnOnceAboutEphemeralKey(logger: Logger): void {
  if (warned) return;
  warned = true;
  logger.warn(EPHEMERAL_KEY_WARNING);
}
