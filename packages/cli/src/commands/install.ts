import { resolve } from 'node:path';
import type { Command } from 'commander';
import { collect } from '../args';
import { CLIENT_FORMATS } from '../install/clients';
import { processLocations } from '../install/config-locations';
import { describePlan, planInstall, writePlan } from '../install/config-writer';
import { type InstallFlags, type InstallRequest, resolveInstall } from '../install/install-request';
import type { Io } from '../output';

/** Runs `gantry install` once its request is resolved: prints, plans, writes, reports. */
export async function runInstall(request: InstallRequest, flags: InstallFlags, io: Io): Promise<void> {
  const { format, scope, file, server } = request;
  for (const warning of request.warnings) io.stderr.write(`${warning}\n`);
  const entry = format.entry(server);
  if (file === undefined) {
    // mcp-json without --file: the JSON alone on stdout, ready to pipe or paste.
    io.stdout.write(`${JSON.stringify({ [format.serversKey[0]]: { [server.name]: entry } }, null, 2)}\n`);
    return;
  }
  // The scope is named only where the client has a choice of two.
  const where =
    scope === undefined || format.scopes.length < 2 ? format.title : `${format.title} (${scope} scope)`;
  const plan = await planInstall({
    file,
    syntax: format.syntax,
    serversKey: format.serversKey,
    name: server.name,
    entry,
    force: flags.force === true,
    where,
  });
  if (flags.dryRun) {
    io.stdout.write(`Dry run: nothing is written.\n${describePlan(plan)}`);
    return;
  }
  if (plan.outcome === 'unchanged') {
    io.stdout.write(
      `${where} already has server "${server.name}" with these settings in ${file}; nothing written.\n`,
    );
    return;
  }
  const { backup } = await writePlan(plan);
  const verb = plan.outcome === 'replaced' ? 'Replaced' : 'Added';
  const lines = [`${verb} server "${server.name}" in ${where}: ${file}`];
  if (backup !== undefined) lines.push(`Backup of the previous file: ${backup}`);
  if (format.nextStep !== undefined) lines.push(format.nextStep);
  io.stdout.write(`${lines.join('\n')}\n`);
}

/** `gantry install <client> [-- server arguments]`. */
export function registerInstallCommand(program: Command, io: Io): void {
  const clients = CLIENT_FORMATS.map((format) => format.id).join(', ');
  program
    .command('install')
    .description("Add this project's server to an MCP client's configuration file")
    .argument('<client>', clients)
    .argument('[args...]', 'arguments for the server, after --')
    .option('--scope <scope>', 'project or user, where the client has both (default: user)')
    .option('--name <name>', "the server's name in the client (default: package.json name without its scope)")
    .option('--project <dir>', 'the project directory (default: the current directory)')
    .option(
      '--entry <file>',
      'stdio: the built entry run with node (default: package.json main, else dist/main.js)',
    )
    .option('--command <program>', 'stdio: run <program> with the arguments after -- instead of node <entry>')
    .option(
      '-e, --env <KEY=VALUE>',
      'stdio: an environment variable for the server (repeatable)',
      collect,
      [],
    )
    .option('--url <url>', 'a server already running, reached over Streamable HTTP (http://…/mcp)')
    .option('-H, --header <header>', "with --url: an HTTP header, 'Name: value' (repeatable)", collect, [])
    .option('--file <path>', "write this file instead of the client's own (mcp-json: instead of printing)")
    .option('--dry-run', 'print the file and the change as a diff; write nothing')
    .option('--force', 'replace a different server of the same name')
    .addHelpText(
      'after',
      `
Without --url the client starts the server itself over stdio: "node <project>/dist/main.js",
with an absolute path, so build the project first. The entry is merged into the file: other
servers and settings stay as they are, and the old file is copied to <file>.<UTC time>.bak.

Files (user scope is the default; --scope project writes into the project):
  claude-code      ~/.claude.json "mcpServers"            project: .mcp.json
  claude-desktop   <app data>/Claude/claude_desktop_config.json
  cursor           ~/.cursor/mcp.json                      project: .cursor/mcp.json
  vscode           <app data>/Code/User/mcp.json "servers" project: .vscode/mcp.json
  gemini-cli       ~/.gemini/settings.json                 project: .gemini/settings.json
  goose            ~/.config/goose/config.yaml "extensions" (Windows: %APPDATA%\\Block\\goose\\config)
  mcp-json         printed on stdout, or merged into --file
<app data> is ~/Library/Application Support on macOS, %APPDATA% on Windows, and
$XDG_CONFIG_HOME (~/.config) on Linux.

Examples:
  $ gantry install claude-code
  $ gantry install cursor --scope project --env LOG_LEVEL=debug
  $ gantry install vscode --url http://127.0.0.1:3000/mcp -H 'Authorization: Bearer x'
  $ gantry install claude-desktop --dry-run
  $ gantry install mcp-json > servers.json`,
    )
    .action(async (client: string, args: string[], flags: InstallFlags) => {
      const locations = processLocations(resolve(flags.project ?? '.'));
      const request = await resolveInstall(client, args, flags, locations);
      await runInstall(request, flags, io);
    });
}
