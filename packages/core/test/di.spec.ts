import {
  GantryFactory,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@gantry/core';

const create = (module: Function) =>
  GantryFactory.create(module as never, { name: 't', version: '1', logger: false });

describe('dependency injection', () => {
  it('injects constructor dependencies by their emitted types', async () => {
    @Injectable()
    class Clock {
      now() {
        return 42;
      }
    }
    @Injectable()
    class Service {
      constructor(readonly clock: Clock) {}
    }
    @Module({ providers: [Clock, Service] })
    class AppModule {}
    const app = await create(AppModule);
    expect(app.get(Service).clock).toBeInstanceOf(Clock);
    expect(app.get(Service).clock).toBe(app.get(Clock));
  });

  it('supports useValue, useClass, useFactory with inject, and useExisting', async () => {
    const CONFIG = Symbol('CONFIG');
    abstract class Store {
      abstract name(): string;
    }
    class MemoryStore extends Store {
      name() {
        return 'memory';
      }
    }
    @Module({
      providers: [
        { provide: CONFIG, useValue: { prefix: 'p' } },
        { provide: Store, useClass: MemoryStore },
        {
          provide: 'label',
          useFactory: async (config: { prefix: string }, store: Store) => `${config.prefix}-${store.name()}`,
          inject: [CONFIG, Store],
        },
        { provide: 'alias', useExisting: 'label' },
      ],
    })
    class AppModule {}
    const app = await create(AppModule);
    expect(app.get(Store)).toBeInstanceOf(MemoryStore);
    expect(app.get('label')).toBe('p-memory');
    expect(app.get('alias')).toBe('p-memory');
  });

  it('injects string and symbol tokens with @Inject', async () => {
    @Injectable()
    class Service {
      constructor(@Inject('dir') readonly dir: string) {}
    }
    @Module({ providers: [{ provide: 'dir', useValue: '/tmp/x' }, Service] })
    class AppModule {}
    expect((await create(AppModule)).get(Service).dir).toBe('/tmp/x');
  });

  it('inherits @Inject tokens in subclasses, so a subclass can replace its parent', async () => {
    @Injectable()
    class Api {
      constructor(@Inject('url') readonly url: string) {}
    }
    @Injectable()
    class FakeApi extends Api {}
    @Module({
      providers: [
        { provide: 'url', useValue: 'http://x' },
        { provide: Api, useClass: FakeApi },
      ],
    })
    class AppModule {}
    const api = (await create(AppModule)).get(Api);
    expect(api).toBeInstanceOf(FakeApi);
    expect(api.url).toBe('http://x');
  });

  it('shares exported providers with importers, as one instance', async () => {
    @Injectable()
    class Db {}
    @Module({ providers: [Db], exports: [Db] })
    class DbModule {}
    @Injectable()
    class A {
      constructor(readonly db: Db) {}
    }
    @Module({ imports: [DbModule], providers: [A], exports: [A] })
    class AModule {}
    @Injectable()
    class B {
      constructor(readonly db: Db) {}
    }
    @Module({ imports: [DbModule, AModule], providers: [B] })
    class AppModule {}
    const app = await create(AppModule);
    expect(app.get(B).db).toBe(app.get(A).db);
  });

  it('re-exports an imported module', async () => {
    @Injectable()
    class Db {}
    @Module({ providers: [Db], exports: [Db] })
    class DbModule {}
    @Module({ imports: [DbModule], exports: [DbModule] })
    class CoreModule {}
    @Injectable()
    class Service {
      constructor(readonly db: Db) {}
    }
    @Module({ imports: [CoreModule], providers: [Service] })
    class AppModule {}
    expect((await create(AppModule)).get(Service).db).toBeInstanceOf(Db);
  });

  it('accepts dynamic modules', async () => {
    @Module({})
    class ConfigModule {
      static forRoot(value: string) {
        return {
          module: ConfigModule,
          providers: [{ provide: 'value', useValue: value }],
          exports: ['value'],
        };
      }
    }
    @Injectable()
    class Service {
      constructor(@Inject('value') readonly value: string) {}
    }
    @Module({ imports: [ConfigModule.forRoot('configured')], providers: [Service] })
    class AppModule {}
    expect((await create(AppModule)).get(Service).value).toBe('configured');
  });

  it('runs lifecycle hooks in order, and shutdown hooks in reverse on close', async () => {
    const calls: string[] = [];
    class Hooks implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
      constructor(private readonly name: string) {}
      onModuleInit() {
        calls.push(`${this.name}:init`);
      }
      async onApplicationBootstrap() {
        calls.push(`${this.name}:bootstrap`);
      }
      onModuleDestroy() {
        calls.push(`${this.name}:destroy`);
      }
      onApplicationShutdown(signal?: string) {
        calls.push(`${this.name}:shutdown:${signal}`);
      }
    }
    @Injectable()
    class First extends Hooks {
      constructor() {
        super('first');
      }
    }
    @Module({ providers: [First], exports: [First] })
    class FirstModule {}
    @Injectable()
    class Second extends Hooks {
      constructor() {
        super('second');
      }
    }
    @Module({ imports: [FirstModule], providers: [Second] })
    class AppModule {}
    const app = await create(AppModule);
    expect(calls).toEqual(['first:init', 'second:init', 'first:bootstrap', 'second:bootstrap']);
    calls.length = 0;
    await app.close('SIGTERM');
    expect(calls).toEqual([
      'second:destroy',
      'first:destroy',
      'second:shutdown:SIGTERM',
      'first:shutdown:SIGTERM',
    ]);
  });
});

describe('bootstrap errors', () => {
  it('names the missing provider, the class that needs it and the module', async () => {
    class Missing {}
    @Injectable()
    class Service {
      constructor(readonly missing: Missing) {}
    }
    @Module({ providers: [Service] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Cannot resolve Missing, needed by Service (constructor parameter #0) in module AppModule. ' +
        'Add Missing to the providers of AppModule, or import a module that exports it.',
    );
  });

  it('says when an imported module provides but does not export', async () => {
    @Injectable()
    class Db {}
    @Module({ providers: [Db] })
    class DbModule {}
    @Injectable()
    class Service {
      constructor(readonly db: Db) {}
    }
    @Module({ imports: [DbModule], providers: [Service] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Cannot resolve Db, needed by Service (constructor parameter #0) in module AppModule. ' +
        'DbModule provides Db but does not export it: add Db to the exports of DbModule.',
    );
  });

  it('says when the provider lives in a module that is not imported', async () => {
    @Injectable()
    class Db {}
    @Module({ providers: [Db], exports: [Db] })
    class DbModule {}
    @Injectable()
    class Service {
      constructor(readonly db: Db) {}
    }
    @Module({ providers: [Service] })
    class FeatureModule {}
    @Module({ imports: [DbModule, FeatureModule] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Cannot resolve Db, needed by Service (constructor parameter #0) in module FeatureModule. ' +
        'It is provided by DbModule, which FeatureModule does not import: import DbModule into FeatureModule (and export Db from it).',
    );
  });

  it('reports a circular dependency with its path', async () => {
    @Injectable()
    class A {
      constructor(@Inject('B') readonly b: unknown) {}
    }
    @Injectable()
    class B {
      constructor(readonly a: A) {}
    }
    @Module({ providers: [A, { provide: 'B', useClass: B }] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Circular dependency: A → "B" → A (in module AppModule). Break the cycle, e.g. move the shared logic into a third provider that both depend on.',
    );
  });

  it('explains missing design:paramtypes and both fixes', async () => {
    class Dep {}
    class NoMetadata {
      constructor(readonly dep: Dep) {}
    }
    // No class decorator: TypeScript/swc emit no design:paramtypes for this class.
    @Module({ providers: [Dep, NoMetadata] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Cannot inject NoMetadata: constructor parameter #0 has no type information (no design:paramtypes metadata). ' +
        'Either compile with decorator metadata (tsc with "emitDecoratorMetadata": true, or swc with jsc.transform.decoratorMetadata; ' +
        'esbuild and tsx do not emit it) and make sure the class has @Injectable(), or name each dependency explicitly with @Inject(Token) on parameter #0.',
    );
  });

  it('refuses interface-typed parameters without @Inject', async () => {
    interface Options {
      a: string;
    }
    @Injectable()
    class Service {
      constructor(readonly options: Options) {}
    }
    @Module({ providers: [Service] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Cannot inject Service: constructor parameter #0 has type Object (an interface, a type alias or a primitive leaves no runtime type). Use @Inject(Token) on that parameter.',
    );
  });

  it('refuses an exported token the module does not have', async () => {
    class Ghost {}
    @Module({ exports: [Ghost] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Module AppModule exports Ghost, but neither provides it nor imports a module that exports it. Add Ghost to the providers of AppModule, or remove it from its exports.',
    );
  });

  it('refuses a root that is not a module', async () => {
    class Plain {}
    await expect(create(Plain)).rejects.toThrow('Plain is not a module: add @Module({ ... }) to the class');
  });

  it('wraps a failing factory with the token and module', async () => {
    @Module({
      providers: [
        {
          provide: 'conn',
          useFactory: () => {
            throw new Error('ECONNREFUSED');
          },
        },
      ],
    })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'The factory of "conn" in module AppModule threw: ECONNREFUSED',
    );
  });

  it('refuses a provider object without a recipe', async () => {
    @Module({ providers: [{ provide: 'x' } as never] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'Module AppModule: the provider of "x" needs one of useValue, useClass, useFactory or useExisting',
    );
  });
});

describe('@Module misuse', () => {
  it('rejects unknown keys', () => {
    expect(() => Module({ provider: [] } as never)).toThrow(
      "@Module(): unknown key 'provider'; the keys are imports, providers and exports",
    );
  });

  it('rejects undefined entries (circular file imports)', () => {
    expect(() => {
      @Module({ imports: [undefined as never] })
      class Broken {}
      return Broken;
    }).toThrow(
      /^@Module\(\) on Broken: imports\[0\] is undefined\. This usually means a circular file import/,
    );
  });

  it('rejects @Inject without a token', () => {
    expect(() => Inject(undefined as never)).toThrow(
      '@Inject() needs a token (a class, string or symbol). An undefined class here usually means a circular file import.',
    );
  });
});
