import { CliError } from '../src/cli-error';
import { setJsonEntry } from '../src/install/json-config-edit';
import { setYamlEntry } from '../src/install/yaml-config-edit';

const entry = { command: 'node', args: ['/srv/weather/dist/main.js'] };

function json(text: string | undefined, serversKey: readonly string[] = ['mcpServers']) {
  return setJsonEntry({ text, file: 'mcp.json', serversKey, name: 'weather', entry });
}

describe('setJsonEntry', () => {
  it('fills an empty object, giving its braces their own lines', () => {
    expect(json('{}\n').text).toBe(
      '{\n  "mcpServers": {\n    "weather": {\n      "command": "node",\n      "args": [\n        "/srv/weather/dist/main.js"\n      ]\n    }\n  }\n}\n',
    );
    expect(json('{\n  "mcpServers": {}\n}\n').text).toBe(
      '{\n  "mcpServers": {\n    "weather": {\n      "command": "node",\n      "args": [\n        "/srv/weather/dist/main.js"\n      ]\n    }\n  }\n}\n',
    );
  });

  it('starts a file that is empty or only whitespace', () => {
    expect(json('  \n').text).toBe(json(undefined).text);
    expect(JSON.parse(json(undefined).text)).toEqual({ mcpServers: { weather: entry } });
  });

  it('keeps CRLF line endings and tab indentation', () => {
    const { text } = json('{\r\n\t"a": 1\r\n}\r\n');
    expect(text).toBe(
      '{\r\n\t"a": 1,\r\n\t"mcpServers": {\r\n\t\t"weather": {\r\n\t\t\t"command": "node",\r\n\t\t\t"args": [\r\n\t\t\t\t"/srv/weather/dist/main.js"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
  });

  it('replaces a null servers value with an object', () => {
    expect(JSON.parse(json('{ "mcpServers": null }').text)).toEqual({ mcpServers: { weather: entry } });
  });

  it('replaces an existing entry in place and reports what was there', () => {
    const edit = json('{\n  "mcpServers": {\n    "weather": { "command": "python" },\n    "z": {}\n  }\n}\n');
    expect(edit.existing).toEqual({ command: 'python' });
    expect(edit.text).toBe(
      '{\n  "mcpServers": {\n    "weather": {\n      "command": "node",\n      "args": [\n        "/srv/weather/dist/main.js"\n      ]\n    },\n    "z": {}\n  }\n}\n',
    );
  });

  it('refuses servers that are not an object, and a top level that is not one', () => {
    expect(() => json('{ "mcpServers": [] }')).toThrow(
      new CliError(
        'mcp.json: "mcpServers" is a JSON array, not an object of servers; fix it, or move the file away',
      ),
    );
    expect(() => json('[1]')).toThrow(
      new CliError('mcp.json holds a JSON array, not an object; fix it, or move it away'),
    );
  });
});

describe('setYamlEntry', () => {
  function yaml(text: string | undefined) {
    return setYamlEntry({ text, file: 'config.yaml', serversKey: ['extensions'], name: 'weather', entry });
  }

  it('fills an "extensions:" key that has no value yet, keeping the comments around it', () => {
    expect(yaml('# goose\nextensions: # none yet\nGOOSE_MODE: auto\n').text).toBe(
      '# goose\nextensions: # none yet\n  weather:\n    command: node\n    args:\n      - /srv/weather/dist/main.js\nGOOSE_MODE: auto\n',
    );
  });

  it('starts a file of comments only', () => {
    expect(yaml('# nothing here yet\n').text).toBe(
      '# nothing here yet\n\nextensions:\n  weather:\n    command: node\n    args:\n      - /srv/weather/dist/main.js\n',
    );
  });

  it('reports the existing entry, and refuses YAML that does not parse', () => {
    expect(yaml('extensions:\n  weather:\n    cmd: python\n').existing).toEqual({ cmd: 'python' });
    expect(() => yaml('extensions: [\n')).toThrow(/^config\.yaml is not valid YAML \(/);
    expect(() => yaml('- a\n')).toThrow(
      new CliError('config.yaml does not hold a YAML mapping at its top; fix it, or move it away'),
    );
  });
});
