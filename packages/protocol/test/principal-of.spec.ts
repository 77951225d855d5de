import { type AuthInfo, principalOf } from '@gantry/protocol';

// A verifier written in JavaScript (or mapping an introspection answer) may report a missing
// subject or client as null rather than leaving it out; the type says string, the value says null.
function auth(fields: { token: string; subject?: unknown; clientId?: unknown }): AuthInfo {
  return { scopes: [], ...fields } as AuthInfo;
}

describe('principalOf', () => {
  it('namespaces subject, client and token, so that equal strings of different kinds differ', () => {
    expect(principalOf(auth({ token: 't1', subject: 'alice' }))).toBe('sub:alice');
    expect(principalOf(auth({ token: 't2', clientId: 'alice' }))).toBe('client:alice');
    expect(principalOf(auth({ token: 'alice' }))).toBe('token:alice');
    expect(principalOf(undefined)).toBeUndefined();
  });

  it('reads a null subject or client as absent: tokens with subject null are not one principal', () => {
    const a = auth({ token: 'token-a', subject: null, clientId: 'client-a' });
    const b = auth({ token: 'token-b', subject: null, clientId: 'client-b' });
    expect(principalOf(a)).toBe('client:client-a');
    expect(principalOf(b)).toBe('client:client-b');
    expect(principalOf(auth({ token: 'token-c', subject: null, clientId: null }))).toBe('token:token-c');
  });
});
