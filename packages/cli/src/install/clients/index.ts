import type { ClientFormat } from '../client-format';
import { claudeCode } from './claude-code';
import { claudeDesktop } from './claude-desktop';
import { cursor } from './cursor';
import { geminiCli } from './gemini-cli';
import { goose } from './goose';
import { mcpJson } from './mcp-json';
import { vscode } from './vscode';

/** Every client `gantry install` knows, in the order help lists them. */
export const CLIENT_FORMATS: readonly ClientFormat[] = [
  claudeCode,
  claudeDesktop,
  cursor,
  vscode,
  geminiCli,
  goose,
  mcpJson,
];

/** The format for a client id, or undefined. */
export function clientFormat(id: string): ClientFormat | undefined {
  return CLIENT_FORMATS.find((format) => format.id === id);
}
