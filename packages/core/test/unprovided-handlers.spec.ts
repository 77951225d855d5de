// A class with @Tool/@Resource/@Prompt methods that no module provides serves nothing; bootstrap
// says so, naming the class and the fix. Classes are defined inside each test, so that a test
// sees only its own (the record of decorated classes is per process, as decorators run once).
import 'reflect-metadata';
import { GantryFactory, Injectable, type Logger, Module, Prompt, Resource, Tool } from '../src';

function capturingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => {};
  return { warnings, logger: { debug: ignore, info: ignore, error: ignore, warn: (m) => warnings.push(m) } };
}

const warningFor = (name: string) =>
  `${name} has @Tool, @Resource or @Prompt methods but is in no module's providers, so none of them is served; ` +
  `add ${name} to the providers of a module (e.g. @Module({ providers: [${name}] })).`;

describe('bootstrap and handler classes that no module provides', () => {
  it('warns once, naming the class and the fix, however many apps bootstrap', async () => {
    @Injectable()
    class NotesTools {
      @Tool({ description: 'Lists notes' })
      listNotes(): string {
        return 'none';
      }
    }
    @Injectable()
    class NoteResources {
      @Resource({ uri: 'notes://all' })
      all(): string {
        return '';
      }
    }
    @Injectable()
    class Served {
      @Prompt({ description: 'Greets' })
      greet(): string {
        return 'hi';
      }
    }
    @Module({ providers: [Served] })
    class AppModule {}

    const { logger, warnings } = capturingLogger();
    const app = await GantryFactory.create(AppModule, { name: 't', version: '1', logger });
    expect(warnings).toEqual([warningFor('NotesTools'), warningFor('NoteResources')]);
    // Defined, never provided: exactly the mistake the warning is for.
    expect([NotesTools.name, NoteResources.name]).toEqual(['NotesTools', 'NoteResources']);
    await app.close();

    const again = await GantryFactory.create(AppModule, { name: 't', version: '1', logger });
    expect(warnings).toHaveLength(2);
    await again.close();
  });

  it('does not warn about a class some module provides (directly, by useClass, as a subclass, in another app), nor about a plain plugin class', async () => {
    @Injectable()
    class BaseTools {
      @Tool({ description: 'Inherited' })
      inherited(): string {
        return 'base';
      }
    }
    @Injectable()
    class DerivedTools extends BaseTools {}
    @Injectable()
    class ByClass {
      @Tool({ description: 'Provided through useClass' })
      byClass(): string {
        return 'class';
      }
    }
    @Injectable()
    class OtherAppTools {
      @Tool({ description: 'Served by another app of this process' })
      other(): string {
        return 'other';
      }
    }
    /** A plugin: a plain class the app creates and adds at runtime (registry.add). */
    class WeatherPlugin {
      @Tool({ description: 'Forecast' })
      forecast(): string {
        return 'sunny';
      }
    }
    @Module({ providers: [DerivedTools, { provide: 'tools', useClass: ByClass }] })
    class AppModule {}
    @Module({ providers: [OtherAppTools] })
    class OtherModule {}
    expect(OtherModule.name).toBe('OtherModule');

    const { logger, warnings } = capturingLogger();
    const app = await GantryFactory.create(AppModule, { name: 't', version: '1', logger });
    expect(warnings).toEqual([]);
    expect(app.registry.tools.has('inherited')).toBe(true);
    app.registry.add(new WeatherPlugin());
    expect(app.registry.tools.has('forecast')).toBe(true);
    await app.close();
  });

  it('still warns when another module provides an object without a prototype (useValue: Object.create(null))', async () => {
    @Injectable()
    class ForgottenTools {
      @Tool({ description: 'Never provided' })
      forgotten(): string {
        return 'none';
      }
    }
    // Defined, never bootstrapped here: its providers still count for every app of the process.
    @Module({ providers: [{ provide: 'settings', useValue: Object.create(null) }] })
    class SettingsModule {}
    expect(SettingsModule.name).toBe('SettingsModule');
    @Module({})
    class AppModule {}

    const { logger, warnings } = capturingLogger();
    const app = await GantryFactory.create(AppModule, { name: 't', version: '1', logger });
    expect(warnings).toEqual([warningFor(ForgottenTools.name)]);
    await app.close();
  });
});
