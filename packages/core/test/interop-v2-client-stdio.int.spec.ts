// The official v2 client (@modelcontextprotocol/client 2.4.0) drives the dual-era fixture running
// as a real child process on stdio, in both protocol eras.
import { join, resolve } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  type Connected,
  legacySuite,
  type Negotiation,
  statelessSuite,
  text,
  v2Client,
} from './support/v2-client';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const SERVER = join(__dirname, 'fixtures', 'dual-era-stdio-main.ts');

async function spawnAndConnect(negotiation: Negotiation, prior?: { kind: 'legacy' }): Promise<Connected> {
  const harness = v2Client(negotiation);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-r', REGISTER, SERVER],
    cwd: ROOT,
    stderr: 'pipe',
  });
  await harness.client.connect(transport, prior ? { prior } : undefined);
  return { harness, transport, close: () => harness.client.close() };
}

describe('the v2 client pinned to 2026-07-28, over stdio', () => {
  statelessSuite(() => spawnAndConnect('pin'));
});

describe('the v2 client in legacy mode (initialize, 2025-11-25), over stdio', () => {
  legacySuite(() => spawnAndConnect('legacy'));
});

describe('the v2 client negotiating the era over stdio', () => {
  it('picks 2026-07-28 when it probes with server/discover (mode auto)', async () => {
    const c = await spawnAndConnect('auto');
    try {
      expect(c.harness.client.getProtocolEra()).toBe('modern');
      expect(c.harness.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const result = await c.harness.client.callTool({ name: 'plan_trip', arguments: { city: 'Kyoto' } });
      expect(text(result)).toMatch(/^Booked Kyoto for Ada \(stateless\): /);
    } finally {
      await c.close();
    }
  });

  it('runs initialize when told the server is legacy (prior verdict), even in mode auto', async () => {
    const c = await spawnAndConnect('auto', { kind: 'legacy' });
    try {
      expect(c.harness.client.getProtocolEra()).toBe('legacy');
      expect(c.harness.client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const result = await c.harness.client.callTool({ name: 'plan_trip', arguments: { city: 'Kyoto' } });
      expect(text(result)).toMatch(/^Booked Kyoto for Ada \(session\): /);
    } finally {
      await c.close();
    }
  });
});
