import type { Wire } from '@gantry/testing';

/** The raw wire harness lives in `@gantry/testing`; re-exported for the specs that import it from here. */
export { openWire, type Wire } from '@gantry/testing';

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'wire-test', version: '1.0.0' },
  },
};

/** Sends initialize + initialized and returns the initialize response. */
export function handshake(wire: Wire, protocolVersion = '2025-11-25'): Promise<any> {
  return wire.initialize({ protocolVersion });
}
