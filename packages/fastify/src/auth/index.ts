export { authenticate } from './authenticate';
export {
  type AuthErrorBody,
  type AuthFailure,
  type AuthOutcome,
  insufficientScopeOutcome,
} from './challenge';
export { type EndpointUrls, endpointUrls } from './endpoint-urls';
export { InsufficientScopeError, InvalidTokenError } from './errors';
export { type JwtVerifierOptions, jwtVerifier } from './jwt-verifier';
export { type AuthOptions, checkAuthOptions, type ProtectedResourceMetadata } from './options';
export { registerProtectedResourceMetadata } from './protected-resource-metadata';
