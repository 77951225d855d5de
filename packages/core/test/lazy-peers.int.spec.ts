import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const CORE = join(__dirname, '..', 'dist', 'index.js');

function loadedAfter(script: string): { validator: boolean; transformer: boolean; ajv: boolean } {
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      `${script}
       Promise.resolve(globalThis.ready).then(() => {
         const keys = Object.keys(require.cache);
         process.stdout.write(JSON.stringify({
           validator: keys.some((k) => k.includes('/node_modules/class-validator/')),
           transformer: keys.some((k) => k.includes('/node_modules/class-transformer/')),
           ajv: keys.some((k) => k.includes('/node_modules/ajv/')),
         }));
       });`,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out);
}

describe('class-validator and class-transformer are loaded only when a DTO class needs them', () => {
  it('are not loaded by requiring @gantry/core or serving JSON-Schema tools', () => {
    expect(
      loadedAfter(`
        const { GantryFactory, Module, Tool } = require(${JSON.stringify(CORE)});
        class T { m() { return 'x'; } }
        Tool({ input: { type: 'object', properties: { a: { type: 'string' } } } })(T.prototype, 'm', Object.getOwnPropertyDescriptor(T.prototype, 'm'));
        class M {}
        Module({ providers: [T] })(M);
        globalThis.ready = GantryFactory.create(M, { name: 'n', version: '1', logger: false });
      `),
    ).toMatchObject({ validator: false, transformer: false });
  });
});

describe('ajv is loaded only when a plain JSON Schema is compiled', () => {
  const app = (toolOptions: string) => `
    const { GantryFactory, Module, Tool } = require(${JSON.stringify(CORE)});
    class T { m() { return 'x'; } }
    Tool(${toolOptions})(T.prototype, 'm', Object.getOwnPropertyDescriptor(T.prototype, 'm'));
    class M {}
    Module({ providers: [T] })(M);
    globalThis.ready = GantryFactory.create(M, { name: 'n', version: '1', logger: false });
  `;

  it('is not loaded by requiring @gantry/core or serving tools without a schema', () => {
    expect(loadedAfter(`require(${JSON.stringify(CORE)});`).ajv).toBe(false);
    expect(loadedAfter(app('{}')).ajv).toBe(false);
  });

  it('is loaded by a tool with a JSON Schema input', () => {
    expect(loadedAfter(app(`{ input: { type: 'object', properties: { a: { type: 'string' } } } }`)).ajv).toBe(
      true,
    );
  });
});
