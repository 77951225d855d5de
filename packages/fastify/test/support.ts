import { GantryFactory } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { FeatureModule } from '../../core/test/fixtures/feature-app';
import { type GantryMcpOptions, gantryMcp } from '../src';

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'inject', version: '1' } },
};

/** A Fastify app serving the feature fixture app at /mcp. */
export async function featureServer(
  options: Omit<GantryMcpOptions, 'app'> = {},
  appOptions: { pageSize?: number } = {},
) {
  const app = await GantryFactory.create(FeatureModule, {
    name: 'features',
    version: '1.0.0',
    logger: false,
    ...appOptions,
  });
  const fastify: FastifyInstance = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.ready();
  return {
    app,
    fastify,
    async close() {
      await fastify.close();
      await app.close();
    },
  };
}

/** POSTs initialize through inject and returns the session id. */
export async function initSession(fastify: FastifyInstance, version = '2025-11-25'): Promise<string> {
  const response = await fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH },
    payload: { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } },
  });
  if (response.statusCode !== 200)
    throw new Error(`initialize failed: ${response.statusCode} ${response.body}`);
  const id = response.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error('no session id');
  await fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      'mcp-session-id': id,
      'mcp-protocol-version': version,
    },
    payload: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  return id;
}
