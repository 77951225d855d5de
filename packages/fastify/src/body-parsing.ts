import { isUtf8 } from 'node:buffer';
import type { Logger } from '@gantry/core';
import { ErrorCode } from '@gantry/protocol';
import { type FastifyInstance, type FastifyRequest, errorCodes as fastifyErrors } from 'fastify';
import { HttpError, sendError } from './errors';
import { unsupportedVersionHeader } from './version-header';

/**
 * JSON bodies: a parse failure is a JSON-RPC parse error (−32700) with HTTP 400. JSON-RPC
 * messages are UTF-8 (MCP 2025-11-25, Basic / Transports; RFC 8259 §8.1): a body that is not
 * is refused, as stdio refuses such a line, rather than decoded with U+FFFD. A DELETE ends the
 * session whatever it carries, so its body is never parsed.
 */
export function registerBodyParsers(fastify: FastifyInstance, bodyLimit: number): void {
  // A body that cannot be read under a version header we do not speak: the version is the
  // problem to report (its −32022 names the versions to retry with), not the body.
  const parseFailure = (request: FastifyRequest, message: string) => {
    const version = unsupportedVersionHeader(request);
    return version
      ? new HttpError(400, version.code, version.message, version.data)
      : new HttpError(400, ErrorCode.ParseError, `Parse error: ${message}`);
  };
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit },
    (request, body, done) => {
      if (request.method === 'DELETE') return done(null, undefined);
      const bytes = body as Buffer;
      if (!isUtf8(bytes)) return done(parseFailure(request, 'the body is not valid UTF-8'), undefined);
      try {
        done(null, JSON.parse(bytes.toString('utf8')));
      } catch (error) {
        done(parseFailure(request, (error as Error).message), undefined);
      }
    },
  );
  // Any other media type: 415, as Fastify answers by default, except on DELETE (read and dropped).
  fastify.addContentTypeParser('*', (request, payload, done) => {
    if (request.method !== 'DELETE') {
      return done(
        new fastifyErrors.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']),
        undefined,
      );
    }
    payload.on('error', (error) => done(error, undefined));
    payload.on('end', () => done(null, undefined));
    payload.resume();
  });
}

/** Every failure as an HTTP error with a JSON-RPC error body; no stack traces in responses. */
export function registerErrorHandler(fastify: FastifyInstance, bodyLimit: number, logger: Logger): void {
  fastify.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _request, reply) => {
    if (error instanceof HttpError)
      return sendError(reply, error.statusCode, error.mcpCode, error.message, null, error.data);
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(
          reply,
          413,
          ErrorCode.InvalidRequest,
          `Request body too large: at most ${bodyLimit} bytes`,
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(
          reply,
          415,
          ErrorCode.InvalidRequest,
          'Unsupported Media Type: send Content-Type: application/json',
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 400, ErrorCode.InvalidRequest, 'Invalid request: the body is empty');
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(
          reply,
          400,
          ErrorCode.InvalidRequest,
          'Invalid request: the Content-Length does not match the body',
        );
    }
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) logger.error('HTTP request failed:', error);
    return sendError(
      reply,
      status,
      status === 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest,
      status === 500 ? 'Internal error' : error.message,
    );
  });
}
