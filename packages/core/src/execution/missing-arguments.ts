import type { ValidationIssue } from '../schema';

/**
 * Says "is required" for top-level arguments the caller left out, instead of what their type
 * checks say about `undefined` ("must be a string"): clearer for a model correcting its call.
 * Other issues are kept as they are.
 */
export function explainMissing(issues: readonly ValidationIssue[], raw: unknown): ValidationIssue[] {
  const given =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const out: ValidationIssue[] = [];
  const missing = new Set<string>();
  for (const issue of issues) {
    const top = issue.path;
    if (top !== '' && !/[.[]/.test(top) && given[top] === undefined) {
      if (!missing.has(top)) {
        missing.add(top);
        out.push({ path: top, message: 'is required' });
      }
      continue;
    }
    out.push(issue);
  }
  return out;
}
