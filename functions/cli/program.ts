/**
 * The commander program: every command registered on it, in the order `--help` lists them.
 * Each command sets the exit code through `setExitCode`; errors it throws reach the caller
 * (functions/cli.ts), which turns them into one line and an exit code.
 */
import { Command } from 'commander';
import type { Config } from '../settings/config.js';
import { DEFAULT_PROJECTS } from '../../sandbox/generators/projects.js';
import { resolveApiTarget } from './api-target.js';
import { registerConsumeCommand } from './consume.js';
import { registerDeadLettersCommand } from './dead-letters.js';
import { registerEnqueueCommand } from './enqueue.js';
import { registerExportCommand } from './export.js';
import { registerForgetCommand } from './forget.js';
import { registerFollowUpCommand } from './follow-up.js';
import { registerGapsCommand } from './gaps.js';
import type { CliIo } from './io.js';
import { registerPlanCommand } from './plan.js';
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
      outputError: (text, write) => write(`${text.split('\n')[0]}\n`),
    });
  const target = (config: Config) => resolveApiTarget(config, io);

  const exportIo = { ...io, resolveApiTarget: target, sandboxProjects: DEFAULT_PROJECTS.map((project) => project.id), setExitCode };
  registerExportCommand(program, exportIo);
  registerPlanCommand(program, exportIo);
  registerStatusCommand(program, exportIo);
  registerForgetCommand(program, exportIo);
  registerReportCommand(program, { ...io, setExitCode });
  registerGapsCommand(program, { ...io, setExitCode });
  registerSandboxCommand(program, { ...io, setExitCode });
  const followUpIo = { ...io, resolveApiTarget: target, setExitCode };
  registerFollowUpCommand(program, followUpIo);
  registerConsumeCommand(program, followUpIo);
  registerEnqueueCommand(program, { ...io, setExitCode });
  registerDeadLettersCommand(program, { ...io, setExitCode });
  return program;
}
