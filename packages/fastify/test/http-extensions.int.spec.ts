// Extensions (SEP-2133) over Streamable HTTP on a real socket: advertised in both eras, each
// stateless request's own client capabilities read, and a missing one answered 400 + −32021.
import 'reflect-metadata';
import { Client, StreamableHttpClientTransport } from '@gantry/client';
import {
  Extension,
  ExtensionMethod,
  type GantryApplication,
  GantryFactory,
  Injectable,
  type McpContext,
  Module,
} from '@gantry/core';
import { listenOn, rpc } from './stateless-support';

const ID = 'com.example/echo';

@Injectable()
@Extension({ id: ID, settings: { loud: true } })
class EchoExtension {
  @ExtensionMethod('echo/say')
  say(params: { text?: string }, ctx: McpContext) {
    const settings = ctx.extensions.require<{ upper?: boolean }>(ID);
    const text = params.text ?? '';
    return { text: settings.upper ? text.toUpperCase() : text };
  }
}

@Module({ providers: [EchoExtension] })
class EchoModule {}

let app: GantryApplication;
let server: Awaited<ReturnType<typeof listenOn>>;
beforeAll(async () => {
  app = await GantryFactory.create(EchoModule, { name: 'echo', version: '1.0.0', logger: false });
  server = await listenOn(app);
});
afterAll(async () => {
  await server.fastify.close();
  await app.close();
});

describe('an extension over HTTP', () => {
  it('stateless: served with the request’s settings; without them 400 and −32021 naming what is required', async () => {
    const ok = await server.post(
      rpc(1, 'echo/say', { text: 'hi' }, { extensions: { [ID]: { upper: true } } }),
    );
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: object }).result).toMatchObject({
      text: 'HI',
      resultType: 'complete',
    });

    const refused = await server.post(rpc(2, 'echo/say', { text: 'hi' }, {}));
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: number; data: unknown } };
    expect(body.error.code).toBe(-32021);
    expect(body.error.data).toEqual({ requiredCapabilities: { extensions: { [ID]: {} } } });

    const discover = await server.post(rpc(3, 'server/discover'));
    expect(
      ((await discover.json()) as { result: { capabilities: { extensions: object } } }).result.capabilities
        .extensions,
    ).toEqual({ [ID]: { loud: true } });
  });

  it('session era: the Gantry client declares the extension in initialize and calls its method', async () => {
    const client = new Client(
      { name: 'ext-client', version: '1.0.0' },
      { capabilities: { extensions: { [ID]: { upper: false } } } },
    );
    await client.connect(new StreamableHttpClientTransport({ url: server.url }), { era: 'session' });
    expect(client.serverCapabilities?.extensions).toEqual({ [ID]: { loud: true } });
    await expect(client.request('echo/say', { text: 'quiet' })).resolves.toEqual({
      text: 'quiet',
    });
    await client.close();
  });

  it('stateless era: the Gantry client sends its extensions on every request', async () => {
    const client = new Client(
      { name: 'ext-client', version: '1.0.0' },
      { capabilities: { extensions: { [ID]: { upper: true } } } },
    );
    await client.connect(new StreamableHttpClientTransport({ url: server.url }), { era: 'stateless' });
    await expect(client.request('echo/say', { text: 'loud' })).resolves.toMatchObject({ text: 'LOUD' });
    await client.close();
  });
});
