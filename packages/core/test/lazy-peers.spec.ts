import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const CORE = join(__dirname, '..', 'dist', 'index.js');

function loadedAfter(script: string): { validator: boolean; transformer: boolean } {
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      `${script}
       const keys = Object.keys(require.cache);
       process.stdout.write(JSON.stringify({
         validator: keys.some((k) => k.includes('/node_modules/class-validator/')),
         transformer: keys.some((k) => k.includes('/node_modules/class-transformer/')),
       }));`,
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
        GantryFactory.create(M, { name: 'n', version: '1', logger: false });
      `),
    ).toEqual({ validator: false, transformer: false });
  });
});
