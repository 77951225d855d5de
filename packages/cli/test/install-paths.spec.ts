import type { InstallScope } from '../src/install/client-format';
import { clientFormat } from '../src/install/clients';
import type { ConfigLocations } from '../src/install/config-locations';

/** Every client's file on the three platforms, computed from the locations alone (no disk). */
const linux: ConfigLocations = {
  platform: 'linux',
  home: '/home/ada',
  projectDir: '/home/ada/weather',
  env: {},
};
const mac: ConfigLocations = {
  platform: 'darwin',
  home: '/Users/ada',
  projectDir: '/Users/ada/weather',
  env: { XDG_CONFIG_HOME: '/Users/ada/.xdg' },
};
const windows: ConfigLocations = {
  platform: 'win32',
  home: 'C:\\Users\\ada',
  projectDir: 'C:\\src\\weather',
  env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' },
};

function fileOf(client: string, scope: InstallScope, locations: ConfigLocations): string {
  return clientFormat(client)!.file(scope, locations);
}

describe('configuration files per platform', () => {
  it.each<[string, InstallScope, string, string, string]>([
    [
      'claude-code',
      'user',
      '/home/ada/.claude.json',
      '/Users/ada/.claude.json',
      'C:\\Users\\ada\\.claude.json',
    ],
    [
      'claude-code',
      'project',
      '/home/ada/weather/.mcp.json',
      '/Users/ada/weather/.mcp.json',
      'C:\\src\\weather\\.mcp.json',
    ],
    [
      'claude-desktop',
      'user',
      '/home/ada/.config/Claude/claude_desktop_config.json',
      '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
      'C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    ],
    [
      'cursor',
      'user',
      '/home/ada/.cursor/mcp.json',
      '/Users/ada/.cursor/mcp.json',
      'C:\\Users\\ada\\.cursor\\mcp.json',
    ],
    [
      'cursor',
      'project',
      '/home/ada/weather/.cursor/mcp.json',
      '/Users/ada/weather/.cursor/mcp.json',
      'C:\\src\\weather\\.cursor\\mcp.json',
    ],
    [
      'vscode',
      'user',
      '/home/ada/.config/Code/User/mcp.json',
      '/Users/ada/Library/Application Support/Code/User/mcp.json',
      'C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json',
    ],
    [
      'vscode',
      'project',
      '/home/ada/weather/.vscode/mcp.json',
      '/Users/ada/weather/.vscode/mcp.json',
      'C:\\src\\weather\\.vscode\\mcp.json',
    ],
    [
      'gemini-cli',
      'user',
      '/home/ada/.gemini/settings.json',
      '/Users/ada/.gemini/settings.json',
      'C:\\Users\\ada\\.gemini\\settings.json',
    ],
    [
      'gemini-cli',
      'project',
      '/home/ada/weather/.gemini/settings.json',
      '/Users/ada/weather/.gemini/settings.json',
      'C:\\src\\weather\\.gemini\\settings.json',
    ],
    [
      'goose',
      'user',
      '/home/ada/.config/goose/config.yaml',
      '/Users/ada/.xdg/goose/config.yaml',
      'C:\\Users\\ada\\AppData\\Roaming\\Block\\goose\\config\\config.yaml',
    ],
  ])('%s (%s scope): Linux, macOS, Windows', (client, scope, onLinux, onMac, onWindows) => {
    expect([
      fileOf(client, scope, linux),
      fileOf(client, scope, mac),
      fileOf(client, scope, windows),
    ]).toEqual([onLinux, onMac, onWindows]);
  });

  it('follows XDG_CONFIG_HOME on Linux, unless it is relative (the XDG spec says to ignore that)', () => {
    const xdg = { ...linux, env: { XDG_CONFIG_HOME: '/data/config' } };
    expect(fileOf('vscode', 'user', xdg)).toBe('/data/config/Code/User/mcp.json');
    expect(fileOf('goose', 'user', xdg)).toBe('/data/config/goose/config.yaml');
    const relative = { ...linux, env: { XDG_CONFIG_HOME: 'config' } };
    expect(fileOf('claude-desktop', 'user', relative)).toBe(
      '/home/ada/.config/Claude/claude_desktop_config.json',
    );
  });

  it('falls back to AppData\\Roaming under the home directory when APPDATA is unset', () => {
    const bare = { ...windows, env: {} };
    expect(fileOf('claude-desktop', 'user', bare)).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    );
    expect(fileOf('goose', 'user', bare)).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\Block\\goose\\config\\config.yaml',
    );
  });

  it('puts Claude Code’s user file in CLAUDE_CONFIG_DIR when that is set', () => {
    expect(
      fileOf('claude-code', 'user', { ...linux, env: { CLAUDE_CONFIG_DIR: '/home/ada/.claude-work' } }),
    ).toBe('/home/ada/.claude-work/.claude.json');
  });
});
