/**
 * The flag tables of docs/cli.md, generated from the commander program
 * (functions/cli/program.ts): one table per command, in the order `--help` lists them, each
 * flag with its meaning, its choices and its default as commander knows them.
 */
import type { Command, Option } from 'commander';
import { createProgram } from '../functions/cli/program.js';
import { blockMarkers, cell, withBlock } from './generated-block.js';

export const CLI_MARKERS = blockMarkers('cli-flags', 'functions/cli/program.ts');

/** The program as the CLI builds it; nothing runs (no command's action is called). */
function program(): Command {
  const sink = { write: () => true };
  return createProgram({ stdout: sink, stderr: sink, env: {}, now: Date.now, stopSignal: new Promise<void>(() => undefined) }, () => undefined);
}

function optionRow(option: Option): string {
  const choices = option.argChoices ? ` (one of ${option.argChoices.map((choice) => `\`${choice}\``).join(', ')})` : '';
  const empty = option.defaultValue === undefined || option.negate || (Array.isArray(option.defaultValue) && option.defaultValue.length === 0);
  const fallback = empty ? '' : `\`${String(option.defaultValue)}\``;
  const required = option.mandatory ? ' (required)' : '';
  return `| \`${option.flags}\` | ${cell(`${option.description}${choices}${required}`)} | ${cell(fallback)} |`;
}

/** Every command, a command with subcommands as each of them (`dead-letters list`). */
function commandsOf(command: Command, prefix = ''): { readonly name: string; readonly command: Command }[] {
  const name = `${prefix}${command.name()}`;
  return command.commands.length === 0 ? [{ name, command }] : command.commands.flatMap((sub) => commandsOf(sub, `${name} `));
}

/** The flags of every command, as Markdown: a heading and a table per command. */
export function cliReference(): string {
  return program()
    .commands.flatMap((command) => commandsOf(command))
    .map(({ name, command }) => {
      const rows = command.options.filter((option) => !option.hidden).map(optionRow);
      const table = rows.length === 0 ? 'No flags.' : ['| flag | meaning | default |', '|---|---|---|', ...rows].join('\n');
      return `### \`${name}\`\n\n${cell(command.description())}\n\n${table}`;
    })
    .join('\n\n');
}

/** docs/cli.md with its flag tables regenerated. */
export function withCliReference(doc: string): string {
  return withBlock(doc, CLI_MARKERS, cliReference());
}
