import {
  type McpError,
  STATELESS_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  unsupportedStatelessVersion,
} from '@gantry/protocol';
import type { FastifyRequest } from 'fastify';
import { header } from './request-headers';

/** Every `MCP-Protocol-Version` header value this endpoint speaks, of either era. */
const HEADER_VERSIONS: ReadonlySet<string> = new Set([
  ...SUPPORTED_PROTOCOL_VERSIONS,
  '2024-10-07',
  ...STATELESS_PROTOCOL_VERSIONS,
]);

/**
 * The −32022 error for an `MCP-Protocol-Version` header naming a version we do not speak (MCP
 * 2026-07-28, Basic › Versioning); undefined when the header is absent or spoken. The error
 * lists the stateless versions, which a client can simply retry with; the session era is
 * reached through initialize instead.
 */
export function unsupportedVersionHeader(request: FastifyRequest): McpError | undefined {
  const version = header(request, 'mcp-protocol-version');
  if (version === undefined || HEADER_VERSIONS.has(version)) return undefined;
  return unsupportedStatelessVersion(version, `MCP-Protocol-Version ${JSON.stringify(version)}`);
}
