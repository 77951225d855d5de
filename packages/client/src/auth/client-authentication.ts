// How the client proves itself at the token endpoint (RFC 6749 §2.3, RFC 7523 §2.2): the
// methods `token_endpoint_auth_methods_supported` allows, the registration's own method first.
import { createPrivateKey, webcrypto } from 'node:crypto';
import type { ClientAuth } from 'oauth4webapi';
import { AuthorizationError } from './errors';
import { type OAuthLibrary, oauthLibrary } from './oauth-library';

export type TokenEndpointAuthMethod =
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'none'
  | 'private_key_jwt';

/** A private key for `private_key_jwt` (RFC 7523): PKCS#8 or SEC1/PKCS#1 PEM, and its JWS algorithm. */
export interface PrivateKeyOption {
  readonly pem: string;
  /** `RS256`, `ES256`, … Default: `RS256` for RSA keys, `ES256` for P-256 keys. */
  readonly algorithm?: string;
  /** The key's `kid`, when the authorization server needs it to pick the key. */
  readonly keyId?: string;
}

/** `application/x-www-form-urlencoded` of one value, as RFC 6749 §2.3.1 wants for Basic. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** RFC 6749 §2.3.1: `Authorization: Basic base64(urlencode(id):urlencode(secret))`. */
export function clientSecretBasic(clientId: string, clientSecret: string): ClientAuth {
  const credentials = Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64');
  return (_as, _client, _body, headers) => {
    headers.set('authorization', `Basic ${credentials}`);
  };
}

/**
 * The method to use: the registration's when it named one, else the first the server supports
 * among those the credentials allow (RFC 8414 §2: the default is `client_secret_basic`).
 */
export function chooseAuthMethod(
  supported: readonly string[] | undefined,
  has: { secret: boolean; privateKey: boolean },
  registered?: string,
): TokenEndpointAuthMethod {
  if (registered === 'client_secret_basic' || registered === 'client_secret_post' || registered === 'none') {
    if (registered === 'none' || has.secret) return registered;
  }
  if (registered === 'private_key_jwt' && has.privateKey) return registered;
  const offered = supported ?? ['client_secret_basic'];
  const usable: TokenEndpointAuthMethod[] = has.privateKey
    ? ['private_key_jwt']
    : has.secret
      ? ['client_secret_basic', 'client_secret_post']
      : ['none'];
  const chosen = usable.find((method) => offered.includes(method));
  if (chosen !== undefined) return chosen;
  // A server that lists only methods these credentials cannot do.
  if (has.secret && supported === undefined) return 'client_secret_basic';
  throw new AuthorizationError(
    `The authorization server accepts ${offered.join(', ')} at its token endpoint, and this client has ${has.privateKey ? 'a private key' : has.secret ? 'a client secret' : 'no credentials'}`,
  );
}

function defaultAlgorithm(pem: string): string {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
  }
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  throw new AuthorizationError(`Unsupported private key type for private_key_jwt: ${key.asymmetricKeyType}`);
}

function importParams(
  algorithm: string,
): webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams | webcrypto.Algorithm {
  switch (algorithm) {
    case 'RS256':
    case 'RS384':
    case 'RS512':
      return { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${algorithm.slice(2)}` };
    case 'PS256':
    case 'PS384':
    case 'PS512':
      return { name: 'RSA-PSS', hash: `SHA-${algorithm.slice(2)}` };
    case 'ES256':
      return { name: 'ECDSA', namedCurve: 'P-256' };
    case 'ES384':
      return { name: 'ECDSA', namedCurve: 'P-384' };
    case 'ES512':
      return { name: 'ECDSA', namedCurve: 'P-521' };
    case 'EdDSA':
      return { name: 'Ed25519' };
    default:
      throw new AuthorizationError(`Unsupported private_key_jwt algorithm ${algorithm}`);
  }
}

/** RFC 7523 §2.2 client assertion signed with `key`; the PEM is converted to PKCS#8 first. */
async function privateKeyJwt(option: PrivateKeyOption): Promise<ClientAuth> {
  const algorithm = option.algorithm ?? defaultAlgorithm(option.pem);
  const pkcs8 = createPrivateKey(option.pem).export({ format: 'der', type: 'pkcs8' });
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, importParams(algorithm), false, ['sign']);
  return oauthLibrary().PrivateKeyJwt({
    key: key as unknown as Parameters<OAuthLibrary['PrivateKeyJwt']>[0] extends { key: infer K } ? K : never,
    kid: option.keyId,
  });
}

/** The oauth4webapi client authentication for `method`. */
export async function clientAuthentication(
  method: TokenEndpointAuthMethod,
  credentials: { clientSecret?: string; privateKey?: PrivateKeyOption; clientId: string },
): Promise<ClientAuth> {
  const library = oauthLibrary();
  switch (method) {
    case 'client_secret_basic':
      return clientSecretBasic(credentials.clientId, credentials.clientSecret ?? '');
    case 'client_secret_post':
      return library.ClientSecretPost(credentials.clientSecret ?? '');
    case 'private_key_jwt':
      if (!credentials.privateKey) throw new AuthorizationError('private_key_jwt needs a private key');
      return privateKeyJwt(credentials.privateKey);
    case 'none':
      return library.None();
  }
}
