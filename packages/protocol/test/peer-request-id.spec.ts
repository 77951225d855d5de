import { InMemoryTransport, type JSONRPCRequest, Peer, type RequestId } from '@gantry/protocol';

async function pair(onRequest: (request: JSONRPCRequest) => { [key: string]: unknown }) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = new Peer({ onRequest: (request) => onRequest(request) });
  const client = new Peer();
  await server.connect(a);
  await client.connect(b);
  return { server, client };
}

describe('Peer.request: onId', () => {
  it('reports the id each request goes out with, before it is sent', async () => {
    const seen: RequestId[] = [];
    const order: string[] = [];
    const { client } = await pair((request) => {
      order.push(`received ${String(request.id)}`);
      return { id: request.id };
    });
    const onId = (id: RequestId) => {
      seen.push(id);
      order.push(`assigned ${String(id)}`);
    };
    const first = client.request({ method: 'a' }, { onId });
    const second = client.request({ method: 'b' }, { onId });
    // Reported synchronously, so the caller can route what arrives for the id.
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toEqual(seen[1]);
    const results = await Promise.all([first, second]);
    expect(results.map((result) => result.id)).toEqual(seen);
    expect(order.indexOf(`assigned ${String(seen[0])}`)).toBeLessThan(
      order.indexOf(`received ${String(seen[0])}`),
    );
  });

  it('rejects without sending when onId throws', async () => {
    const received: string[] = [];
    const { client } = await pair((request) => {
      received.push(request.method);
      return {};
    });
    const failure = new Error('no route for this id');
    await expect(
      client.request(
        { method: 'refused' },
        {
          onId: () => {
            throw failure;
          },
        },
      ),
    ).rejects.toBe(failure);
    await client.request({ method: 'after' });
    expect(received).toEqual(['after']);
  });
});
