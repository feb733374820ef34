/**
 * The commander program: every command registered on it, in the order `--help` lists them.
 * Each command sets the exit code through `setExitCode`; errors it throws reach the caller
 * (functions/cli.ts), which turns them into one line and an exit code.
 */
import { Command } from 'commander';
import type { Config } from '../settings/config.js';
import { DEFAULT_PROJECTS } from '../../sandbox/generators/projects.js';
import { resolveApiTarget } from './api-target.js';
import { registerCompactCommand } from './compact.js';
import { registerConsumeCommand } from './consume.js';
import { registerDeadLettersCommand } from './dead-letters.js';
import { registerDoctorCommand } from './doctor.js';
import { registerEffectsCommand } from './effects.js';
import { registerEnqueueCommand } from './enqueue.js';
import { registerExportCommand } from './export.js';
import { registerForgetCommand } from './forget.js';
import { registerFollowUpCommand } from './follow-up.js';
import { registerGapsCommand } from './gaps.js';
import type { CliIo } from './io.js';
import { CONCURRENCY_FLAG_HELP, LAKE_COMMANDS, ORGANISATION_FLAG_HELP } from './organisations.js';
import { registerPlanCommand } from './plan.js';
import { registerScopeCommand } from './pr-scope.js';
import { registerRegisterPartitionsCommand } from './register-partitions.js';
import { registerReportCommand } from './report.js';
import { registerSandboxCommand } from './sandbox.js';
import { registerStatusCommand } from './status.js';

export function createProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('mintlify-exporter')
    .description('Export Mintlify analytics (every dataset) to Parquet, report on them, and run follow-up prompts on agent jobs.')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${oneLineError(text)}\n`),
    });
  const target = (config: Config) => resolveApiTarget(config, io);

  const exportIo = { ...io, resolveApiTarget: target, sandboxProjects: DEFAULT_PROJECTS.map((project) => project.id), setExitCode };
  registerExportCommand(program, exportIo);
  registerPlanCommand(program, exportIo);
  registerStatusCommand(program, exportIo);
  registerForgetCommand(program, exportIo);
  registerRegisterPartitionsCommand(program, exportIo);
  registerCompactCommand(program, exportIo);
  registerDoctorCommand(program, exportIo);
  registerReportCommand(program, { ...io, setExitCode });
  registerGapsCommand(program, { ...io, setExitCode });
  registerEffectsCommand(program, { ...io, setExitCode });
  registerScopeCommand(program, { ...io, setExitCode });
  registerSandboxCommand(program, { ...io, setExitCode });
  const followUpIo = { ...io, resolveApiTarget: target, setExitCode };
  registerFollowUpCommand(program, followUpIo);
  registerConsumeCommand(program, followUpIo);
  registerEnqueueCommand(program, { ...io, setExitCode });
  registerDeadLettersCommand(program, { ...io, setExitCode });
  // Many organisations (MINTLIFY_ORGS_FILE): cli/organisations.ts runs a lake command once per organisation chosen.
  for (const command of program.commands) {
    if (!LAKE_COMMANDS.includes(command.name())) continue;
    command.option('--org <id>', ORGANISATION_FLAG_HELP, (value: string, previous: string[]) => [...previous, value], []);
    command.option('--concurrency <n>', CONCURRENCY_FLAG_HELP);
  }
  return program;
}

/**
 * Commander's usage error as the project's one line: its first line, and the suggestion it puts
 * on a line of its own (`(Did you mean --days?)`, from showSuggestionAfterError) joined to it —
 * keeping only the first line lost the suggestion.
 */
export function oneLineError(text: string): string {
  const [first = '', ...rest] = text.split('\n').map((line) => line.trim());
  const suggestion = rest.find((line) => /^\(Did you mean .+\?\)$/.test(line));
  return suggestion === undefined ? first : `${first} ${suggestion}`;
}
