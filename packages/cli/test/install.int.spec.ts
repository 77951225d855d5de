import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type CliRun, runCli } from './support/run-cli';

/**
 * `gantry install` run as the built CLI in a child process, with HOME, XDG_CONFIG_HOME and
 * APPDATA pointed into a temporary directory, so every client's file is written there. Each
 * test checks the file's exact text.
 */
interface Sandbox {
  readonly home: string;
  readonly project: string;
  /** The built entry every stdio install points at. */
  readonly entry: string;
  readonly xdg: string;
  install(args: readonly string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliRun>;
  /** Writes a file, making its directory. */
  put(file: string, text: string): void;
  read(file: string): string;
}

const sandboxes: string[] = [];
afterAll(() => {
  for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true });
});

function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'gantry-install-'));
  sandboxes.push(root);
  const home = join(root, 'home');
  const project = join(root, 'weather');
  const xdg = join(root, 'xdg-config');
  const appData = join(root, 'AppData', 'Roaming');
  mkdirSync(home);
  mkdirSync(join(project, 'dist'), { recursive: true });
  writeFileSync(join(project, 'package.json'), '{ "name": "@acme/weather", "main": "dist/main.js" }\n');
  const entry = join(project, 'dist', 'main.js');
  writeFileSync(entry, '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: xdg,
    APPDATA: appData,
  };
  delete env.CLAUDE_CONFIG_DIR;
  return {
    home,
    project,
    entry,
    xdg,
    install: (args, extraEnv = {}) =>
      runCli(['install', ...args], { cwd: project, env: { ...env, ...extraEnv } }),
    put(file, text) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    },
    read: (file) => readFileSync(file, 'utf8'),
  };
}

/** The directory desktop apps keep settings in, for the platform the tests run on. */
function appDataOf(box: Sandbox): string {
  if (process.platform === 'darwin') return join(box.home, 'Library', 'Application Support');
  if (process.platform === 'win32') return join(dirname(box.home), 'AppData', 'Roaming');
  return box.xdg;
}

/** The backup named on stdout, checked to sit beside `file` with a UTC time in its name. */
function backupOf(run: CliRun, file: string): string {
  const backup = /^Backup of the previous file: (.+)$/m.exec(run.stdout)?.[1];
  expect(backup).toBeDefined();
  expect(backup!.startsWith(`${file}.`)).toBe(true);
  expect(backup!.slice(file.length)).toMatch(/^\.\d{8}T\d{6}Z\.bak$/);
  return backup!;
}

/** The files in a directory other than `keep`: no backup or temporary file was left. */
function others(dir: string, keep: string): string[] {
  return readdirSync(dir).filter((name) => name !== keep);
}

describe('gantry install claude-code', () => {
  it('writes mcpServers into a new ~/.claude.json, named after the package without its scope', async () => {
    const box = sandbox();
    const file = join(box.home, '.claude.json');
    const run = await box.install(['claude-code']);
    expect(run).toEqual({
      code: 0,
      stdout: `Added server "weather" in Claude Code (user scope): ${file}\nCheck it with: claude mcp list\n`,
      stderr: '',
    });
    expect(box.read(file)).toBe(
      `{\n  "mcpServers": {\n    "weather": {\n      "type": "stdio",\n      "command": "node",\n      "args": [\n        ${JSON.stringify(box.entry)}\n      ]\n    }\n  }\n}\n`,
    );
    expect(others(box.home, '.claude.json')).toEqual([]);
  });

  it('merges into an existing ~/.claude.json: other keys, servers, order and formatting kept, old file backed up', async () => {
    const box = sandbox();
    const file = join(box.home, '.claude.json');
    const old =
      '{\n    "numStartups": 12,\n    "10": "integer-like keys stay where they are",\n    "mcpServers": {\n        "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}\n    },\n    "projects": {}\n}\n';
    box.put(file, old);
    const run = await box.install(['claude-code', '--env', 'API_KEY=k=1', '-e', 'LOG=debug']);
    expect(run.code).toBe(0);
    expect(box.read(file)).toBe(
      [
        '{',
        '    "numStartups": 12,',
        '    "10": "integer-like keys stay where they are",',
        '    "mcpServers": {',
        '        "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},',
        '        "weather": {',
        '            "type": "stdio",',
        '            "command": "node",',
        '            "args": [',
        `                ${JSON.stringify(box.entry)}`,
        '            ],',
        '            "env": {',
        '                "API_KEY": "k=1",',
        '                "LOG": "debug"',
        '            }',
        '        }',
        '    },',
        '    "projects": {}',
        '}',
        '',
      ].join('\n'),
    );
    expect(box.read(backupOf(run, file))).toBe(old);
  });

  it('--scope project writes .mcp.json in the project and leaves HOME alone', async () => {
    const box = sandbox();
    const run = await box.install(['claude-code', '--scope', 'project', '--name', 'forecast']);
    const file = join(box.project, '.mcp.json');
    expect(run.stdout).toBe(
      `Added server "forecast" in Claude Code (project scope): ${file}\nCheck it with: claude mcp list\n`,
    );
    expect(JSON.parse(box.read(file))).toEqual({
      mcpServers: { forecast: { type: 'stdio', command: 'node', args: [box.entry] } },
    });
    expect(readdirSync(box.home)).toEqual([]);
  });

  it('--url with --header writes an http entry with its headers', async () => {
    const box = sandbox();
    const run = await box.install([
      'claude-code',
      '--url',
      'http://127.0.0.1:3000/mcp',
      '-H',
      'Authorization: Bearer s3cret',
      '--header',
      'X-Tenant:acme',
    ]);
    expect(run.code).toBe(0);
    expect(box.read(join(box.home, '.claude.json'))).toBe(
      '{\n  "mcpServers": {\n    "weather": {\n      "type": "http",\n      "url": "http://127.0.0.1:3000/mcp",\n      "headers": {\n        "Authorization": "Bearer s3cret",\n        "X-Tenant": "acme"\n      }\n    }\n  }\n}\n',
    );
  });

  it('passes the arguments after -- to the server, and --entry picks another built file', async () => {
    const box = sandbox();
    const run = await box.install(['claude-code', '--entry', 'dist/other.js', '--', '--verbose', 'x y']);
    const other = join(box.project, 'dist', 'other.js');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `note: ${other} does not exist yet; build the project (npm run build) before the client starts it\n`,
    );
    expect(JSON.parse(box.read(join(box.home, '.claude.json'))).mcpServers.weather.args).toEqual([
      other,
      '--verbose',
      'x y',
    ]);
  });

  it('keeps the file private and a symbolic link a link: the file it points to is written', async () => {
    const box = sandbox();
    const real = join(box.home, 'dotfiles', 'claude.json');
    box.put(real, '{}\n');
    chmodSync(real, 0o600);
    const link = join(box.home, '.claude.json');
    symlinkSync(real, link);
    const run = await box.install(['claude-code']);
    expect(run.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(Object.keys(JSON.parse(box.read(real)).mcpServers)).toEqual(['weather']);
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(box.read(backupOf(run, link))).toBe('{}\n');
  });

  it('writes into $CLAUDE_CONFIG_DIR/.claude.json when that is set', async () => {
    const box = sandbox();
    const configDir = join(box.home, 'claude-work');
    const run = await box.install(['claude-code'], { CLAUDE_CONFIG_DIR: configDir });
    expect(run.code).toBe(0);
    expect(Object.keys(JSON.parse(box.read(join(configDir, '.claude.json'))).mcpServers)).toEqual([
      'weather',
    ]);
    expect(existsSync(join(box.home, '.claude.json'))).toBe(false);
  });

  it('refuses a different server of the same name unless --force, and then backs up and replaces it', async () => {
    const box = sandbox();
    const file = join(box.home, '.claude.json');
    const old =
      '{\n  "mcpServers": {\n    "weather": { "command": "python", "args": ["weather.py"] }\n  }\n}\n';
    box.put(file, old);
    const refused = await box.install(['claude-code']);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr: `gantry: Claude Code (user scope) already has a server named "weather" in ${file}, with other settings; pass --force to replace it (the old file is backed up), or --name to add this one under another name\n`,
    });
    expect(box.read(file)).toBe(old);
    expect(others(box.home, '.claude.json')).toEqual([]);

    const forced = await box.install(['claude-code', '--force']);
    expect(forced.stdout).toMatch(/^Replaced server "weather" in Claude Code \(user scope\): /);
    expect(box.read(file)).toBe(
      `{\n  "mcpServers": {\n    "weather": {\n      "type": "stdio",\n      "command": "node",\n      "args": [\n        ${JSON.stringify(box.entry)}\n      ]\n    }\n  }\n}\n`,
    );
    expect(box.read(backupOf(forced, file))).toBe(old);
  });

  it('installing the same entry again writes nothing and exits 0', async () => {
    const box = sandbox();
    const file = join(box.home, '.claude.json');
    await box.install(['claude-code']);
    const written = box.read(file);
    const again = await box.install(['claude-code']);
    expect(again).toEqual({
      code: 0,
      stdout: `Claude Code (user scope) already has server "weather" with these settings in ${file}; nothing written.\n`,
      stderr: '',
    });
    expect(box.read(file)).toBe(written);
    expect(others(box.home, '.claude.json')).toEqual([]);
  });

  it('--dry-run prints the file and a diff, and writes nothing', async () => {
    const box = sandbox();
    const file = join(box.home, '.claude.json');
    const old = '{\n  "numStartups": 1\n}\n';
    box.put(file, old);
    const run = await box.install(['claude-code', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'Dry run: nothing is written.',
        `${file} would change (a backup is made first):`,
        `--- ${file}\tcurrent`,
        `+++ ${file}\tafter install`,
        '@@ -1,3 +1,12 @@',
        ' {',
        '-  "numStartups": 1',
        '+  "numStartups": 1,',
        '+  "mcpServers": {',
        '+    "weather": {',
        '+      "type": "stdio",',
        '+      "command": "node",',
        '+      "args": [',
        `+        ${JSON.stringify(box.entry)}`,
        '+      ]',
        '+    }',
        '+  }',
        ' }',
        '',
      ].join('\n'),
    );
    expect(box.read(file)).toBe(old);
    expect(others(box.home, '.claude.json')).toEqual([]);

    const fresh = sandbox();
    const created = await fresh.install(['claude-code', '--scope', 'project', '--dry-run']);
    expect(created.stdout).toContain(`${join(fresh.project, '.mcp.json')} would be created:\n`);
    expect(existsSync(join(fresh.project, '.mcp.json'))).toBe(false);
  });
});

describe('gantry install claude-desktop', () => {
  it('writes claude_desktop_config.json in the app data directory', async () => {
    const box = sandbox();
    const file = join(appDataOf(box), 'Claude', 'claude_desktop_config.json');
    const run = await box.install(['claude-desktop', '-e', 'TZ=UTC']);
    expect(run).toEqual({
      code: 0,
      stdout: `Added server "weather" in Claude Desktop: ${file}\nRestart Claude Desktop to load it.\n`,
      stderr: '',
    });
    expect(box.read(file)).toBe(
      `{\n  "mcpServers": {\n    "weather": {\n      "command": "node",\n      "args": [\n        ${JSON.stringify(box.entry)}\n      ],\n      "env": {\n        "TZ": "UTC"\n      }\n    }\n  }\n}\n`,
    );
  });

  it('merges with the settings there and backs the file up', async () => {
    const box = sandbox();
    const file = join(appDataOf(box), 'Claude', 'claude_desktop_config.json');
    const old = '{\n  "globalShortcut": "Ctrl+Space",\n  "mcpServers": {}\n}\n';
    box.put(file, old);
    const run = await box.install(['claude-desktop']);
    expect(box.read(file)).toBe(
      `{\n  "globalShortcut": "Ctrl+Space",\n  "mcpServers": {\n    "weather": {\n      "command": "node",\n      "args": [\n        ${JSON.stringify(box.entry)}\n      ]\n    }\n  }\n}\n`,
    );
    expect(box.read(backupOf(run, file))).toBe(old);
  });

  it('refuses --url, suggesting mcp-remote or a stdio entry, and writes nothing', async () => {
    const box = sandbox();
    const run = await box.install([
      'claude-desktop',
      '--url',
      'https://example.com/mcp',
      '-H',
      'Authorization: Bearer t',
    ]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "gantry: Claude Desktop's claude_desktop_config.json cannot hold a URL: it starts servers over stdio only. " +
        'Install the stdio entry instead (leave out --url), or bridge the URL with mcp-remote: ' +
        "gantry install claude-desktop --command npx -- -y mcp-remote https://example.com/mcp --header 'Authorization: Bearer t' " +
        '(or add the URL in Claude Desktop under Settings → Connectors)\n',
    });
    expect(existsSync(join(appDataOf(box), 'Claude'))).toBe(false);
  });

  it('takes the suggested mcp-remote bridge as --command with its arguments', async () => {
    const box = sandbox();
    const run = await box.install([
      'claude-desktop',
      '--command',
      'npx',
      '--',
      '-y',
      'mcp-remote',
      'https://example.com/mcp',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(box.read(join(appDataOf(box), 'Claude', 'claude_desktop_config.json')))).toEqual({
      mcpServers: { weather: { command: 'npx', args: ['-y', 'mcp-remote', 'https://example.com/mcp'] } },
    });
  });

  it('has no project scope', async () => {
    const box = sandbox();
    const run = await box.install(['claude-desktop', '--scope', 'project']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'gantry: Claude Desktop has only a user configuration; leave out --scope project\n',
    });
  });
});

describe('gantry install cursor', () => {
  it('writes ~/.cursor/mcp.json, and .cursor/mcp.json with --scope project', async () => {
    const box = sandbox();
    expect((await box.install(['cursor'])).code).toBe(0);
    expect(box.read(join(box.home, '.cursor', 'mcp.json'))).toBe(
      `{\n  "mcpServers": {\n    "weather": {\n      "command": "node",\n      "args": [\n        ${JSON.stringify(box.entry)}\n      ]\n    }\n  }\n}\n`,
    );
    expect((await box.install(['cursor', '--scope', 'project', '-e', 'A=1'])).code).toBe(0);
    expect(JSON.parse(box.read(join(box.project, '.cursor', 'mcp.json')))).toEqual({
      mcpServers: { weather: { command: 'node', args: [box.entry], env: { A: '1' } } },
    });
  });

  it('writes {url, headers} for --url, beside the servers already there', async () => {
    const box = sandbox();
    const file = join(box.home, '.cursor', 'mcp.json');
    const old =
      '{\n  "mcpServers": {\n    "linear": {\n      "url": "https://mcp.linear.app/mcp"\n    }\n  }\n}\n';
    box.put(file, old);
    const run = await box.install(['cursor', '--url', 'http://localhost:3000/mcp', '-H', 'X-Key: 1']);
    expect(box.read(file)).toBe(
      '{\n  "mcpServers": {\n    "linear": {\n      "url": "https://mcp.linear.app/mcp"\n    },\n    "weather": {\n      "url": "http://localhost:3000/mcp",\n      "headers": {\n        "X-Key": "1"\n      }\n    }\n  }\n}\n',
    );
    expect(box.read(backupOf(run, file))).toBe(old);
  });
});

describe('gantry install vscode', () => {
  it('--scope project writes .vscode/mcp.json under "servers" with a type, keeping comments and inputs', async () => {
    const box = sandbox();
    const file = join(box.project, '.vscode', 'mcp.json');
    const old =
      '{\n\t// Secrets are asked for once.\n\t"inputs": [\n\t\t{ "type": "promptString", "id": "token", "password": true }\n\t],\n\t"servers": {\n\t\t"memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }, // the first\n\t}\n}\n';
    box.put(file, old);
    const run = await box.install(['vscode', '--scope', 'project']);
    expect(run.stdout).toBe(
      `Added server "weather" in VS Code (project scope): ${file}\nBackup of the previous file: ${backupOf(run, file)}\nVS Code shows it in the Extensions view under MCP Servers; start it from there or from mcp.json.\n`,
    );
    expect(box.read(file)).toBe(
      `{\n\t// Secrets are asked for once.\n\t"inputs": [\n\t\t{ "type": "promptString", "id": "token", "password": true }\n\t],\n\t"servers": {\n\t\t"memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }, // the first\n\t\t"weather": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "node",\n\t\t\t"args": [\n\t\t\t\t${JSON.stringify(box.entry)}\n\t\t\t]\n\t\t}\n\t}\n}\n`,
    );
    expect(box.read(backupOf(run, file))).toBe(old);
  });

  it('writes the user profile mcp.json by default, with {type: http} for --url', async () => {
    const box = sandbox();
    const run = await box.install(['vscode', '--url', 'http://127.0.0.1:3000/mcp']);
    expect(run.code).toBe(0);
    expect(box.read(join(appDataOf(box), 'Code', 'User', 'mcp.json'))).toBe(
      '{\n  "servers": {\n    "weather": {\n      "type": "http",\n      "url": "http://127.0.0.1:3000/mcp"\n    }\n  }\n}\n',
    );
  });
});

describe('gantry install gemini-cli', () => {
  it('merges into ~/.gemini/settings.json, keeping the other settings', async () => {
    const box = sandbox();
    const file = join(box.home, '.gemini', 'settings.json');
    const old = '{\n  "theme": "Dracula",\n  "selectedAuthType": "gemini-api-key"\n}\n';
    box.put(file, old);
    const run = await box.install(['gemini-cli', '--name', 'wx']);
    expect(run.stdout).toMatch(/\nCheck it with: gemini mcp list\n$/);
    expect(box.read(file)).toBe(
      `{\n  "theme": "Dracula",\n  "selectedAuthType": "gemini-api-key",\n  "mcpServers": {\n    "wx": {\n      "command": "node",\n      "args": [\n        ${JSON.stringify(box.entry)}\n      ]\n    }\n  }\n}\n`,
    );
    expect(box.read(backupOf(run, file))).toBe(old);
  });

  it('writes httpUrl and headers for --url, in .gemini/settings.json with --scope project', async () => {
    const box = sandbox();
    const run = await box.install([
      'gemini-cli',
      '--scope',
      'project',
      '--url',
      'https://example.com/mcp',
      '-H',
      'Authorization: Bearer t',
    ]);
    expect(run.code).toBe(0);
    expect(box.read(join(box.project, '.gemini', 'settings.json'))).toBe(
      '{\n  "mcpServers": {\n    "weather": {\n      "httpUrl": "https://example.com/mcp",\n      "headers": {\n        "Authorization": "Bearer t"\n      }\n    }\n  }\n}\n',
    );
    expect(existsSync(join(box.home, '.gemini'))).toBe(false);
  });
});

describe('gantry install goose', () => {
  it('writes an extension into a new config.yaml', async () => {
    const box = sandbox();
    const file = join(box.xdg, 'goose', 'config.yaml');
    const run = await box.install(['goose', '-e', 'API_KEY=x']);
    expect(run).toEqual({
      code: 0,
      stdout: `Added server "weather" in Goose: ${file}\nStart a new goose session to load it (goose session).\n`,
      stderr: '',
    });
    expect(box.read(file)).toBe(
      [
        'extensions:',
        '  weather:',
        '    type: stdio',
        '    name: weather',
        '    enabled: true',
        '    cmd: node',
        '    args:',
        `      - ${box.entry}`,
        '    envs:',
        '      API_KEY: x',
        '    env_keys: []',
        '    timeout: 300',
        '',
      ].join('\n'),
    );
  });

  it('merges into a config.yaml as Goose writes it: comments, order and list style kept', async () => {
    const box = sandbox();
    const file = join(box.xdg, 'goose', 'config.yaml');
    const old = [
      '# written by goose configure',
      'GOOSE_PROVIDER: anthropic',
      'extensions:',
      '  developer:',
      '    bundled: true',
      '    enabled: true # keep this one on',
      '    name: developer',
      '    timeout: 300',
      '    type: builtin',
      '  github:',
      '    args:',
      '    - -y',
      "    - '@modelcontextprotocol/server-github'",
      '    cmd: npx',
      '    enabled: false',
      '    name: github',
      '    type: stdio',
      'GOOSE_MODE: smart_approve',
      '',
    ].join('\n');
    box.put(file, old);
    const run = await box.install([
      'goose',
      '--url',
      'http://127.0.0.1:3000/mcp',
      '-H',
      'Authorization: Bearer t',
    ]);
    expect(run.code).toBe(0);
    expect(box.read(file)).toBe(
      [
        '# written by goose configure',
        'GOOSE_PROVIDER: anthropic',
        'extensions:',
        '  developer:',
        '    bundled: true',
        '    enabled: true # keep this one on',
        '    name: developer',
        '    timeout: 300',
        '    type: builtin',
        '  github:',
        '    args:',
        '    - -y',
        "    - '@modelcontextprotocol/server-github'",
        '    cmd: npx',
        '    enabled: false',
        '    name: github',
        '    type: stdio',
        '  weather:',
        '    type: streamable_http',
        '    name: weather',
        '    enabled: true',
        '    uri: http://127.0.0.1:3000/mcp',
        '    headers:',
        '      Authorization: Bearer t',
        '    envs: {}',
        '    env_keys: []',
        '    timeout: 300',
        'GOOSE_MODE: smart_approve',
        '',
      ].join('\n'),
    );
    expect(box.read(backupOf(run, file))).toBe(old);

    const clash = await box.install(['goose', '--name', 'github']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toBe(
      `gantry: Goose already has a server named "github" in ${file}, with other settings; pass --force to replace it (the old file is backed up), or --name to add this one under another name\n`,
    );
  });
});

describe('gantry install mcp-json', () => {
  it('prints the mcpServers JSON and writes nothing', async () => {
    const box = sandbox();
    const run = await box.install(['mcp-json', '-e', 'A=1']);
    expect(run).toEqual({
      code: 0,
      stdout: `{\n  "mcpServers": {\n    "weather": {\n      "command": "node",\n      "args": [\n        ${JSON.stringify(box.entry)}\n      ],\n      "env": {\n        "A": "1"\n      }\n    }\n  }\n}\n`,
      stderr: '',
    });
    expect(readdirSync(box.home)).toEqual([]);
  });

  it('merges into --file, and takes --url', async () => {
    const box = sandbox();
    const file = join(box.project, 'servers.json');
    const old = '{ "mcpServers": { "a": { "command": "a" } } }\n';
    box.put(file, old);
    const run = await box.install([
      'mcp-json',
      '--file',
      'servers.json',
      '--url',
      'http://127.0.0.1:3000/mcp',
    ]);
    expect(run.stdout).toMatch(new RegExp(`^Added server "weather" in mcp-json: ${file}\n`));
    expect(box.read(file)).toBe(
      '{ "mcpServers": { "a": { "command": "a" },\n  "weather": {\n    "type": "http",\n    "url": "http://127.0.0.1:3000/mcp"\n  } } }\n',
    );
    expect(JSON.parse(box.read(file))).toEqual({
      mcpServers: { a: { command: 'a' }, weather: { type: 'http', url: 'http://127.0.0.1:3000/mcp' } },
    });
    expect(box.read(backupOf(run, file))).toBe(old);
  });
});

describe('gantry install with bad input', () => {
  it.each([
    [
      ['nope'],
      'unknown client "nope"; choose one of claude-code, claude-desktop, cursor, vscode, gemini-cli, goose, mcp-json',
    ],
    [['cursor', '--scope', 'global'], '--scope global: choose project or user'],
    [
      ['mcp-json', '--scope', 'user'],
      'mcp-json has no scopes: it prints the JSON, or writes it to --file <path>',
    ],
    [
      ['cursor', '--header', 'A: b'],
      '--header is sent to a server at a URL: give --url too, or leave it out',
    ],
    [
      ['cursor', '--url', 'http://x/mcp', '-e', 'A=1'],
      '--url installs a server the client reaches over HTTP, so --env would not be used; leave it out (headers go in --header)',
    ],
    [
      ['cursor', '--url', 'ws://x/mcp'],
      '--url ws://x/mcp: clients reach a server over Streamable HTTP, so use an http:// or https:// URL',
    ],
    [
      ['cursor', '--url', 'http://x/mcp', '-H', 'no colon'],
      `--header needs 'Name: value' (e.g. --header 'Authorization: Bearer x'), got "no colon"`,
    ],
    [['cursor', '-e', 'A'], '--env needs KEY=VALUE with KEY made of letters, digits and "_", got "A"'],
    [
      ['cursor', '--name', '@acme/weather'],
      '--name "@acme/weather": use letters, digits, "-" and "_" (starting with a letter or digit), e.g. --name acme-weather',
    ],
    [
      ['cursor', '--command', 'npx', '--entry', 'x.js'],
      '--command replaces "node <entry>": give --entry or --command, not both',
    ],
    [
      ['cursor', '--file', 'x.json', '--scope', 'user'],
      '--file names the file to write, so --scope has nothing to choose; give one of them',
    ],
  ])('gantry install %j exits 2 naming the problem', async (args, message) => {
    const box = sandbox();
    expect(await box.install(args)).toEqual({ code: 2, stdout: '', stderr: `gantry: ${message}\n` });
    expect(readdirSync(box.home)).toEqual([]);
  });

  it('needs a package.json for the default name, or --name', async () => {
    const box = sandbox();
    const elsewhere = join(box.home, 'not-a-project');
    mkdirSync(elsewhere);
    const run = await box.install(['cursor', '--project', elsewhere, '--entry', box.entry]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `gantry: no package.json in ${elsewhere} to take the server name from; run gantry install in the project, point --project at it, or give --name\n`,
    });
    const named = await box.install(['cursor', '--project', elsewhere, '--entry', box.entry, '--name', 'wx']);
    expect(named.code).toBe(0);
  });

  it('refuses a config file that is not valid JSON, and leaves it as it is', async () => {
    const box = sandbox();
    const file = join(box.home, '.cursor', 'mcp.json');
    box.put(file, '{ "mcpServers": { ');
    const run = await box.install(['cursor']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `gantry: ${file} is not valid JSON (CloseBraceExpected at line 1, column 19); fix it, or move it away to start a new one, and run gantry install again\n`,
    });
    expect(box.read(file)).toBe('{ "mcpServers": { ');
  });
});
