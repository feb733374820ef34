/**
 * `mintlify-exporter sandbox [--port N] [--latency MS] [--budget N/WINDOW [--window fixed|rolling]] [--drift]`:
 * the local API sandbox on 127.0.0.1 until Ctrl-C.
 */
import { Option, type Command } from 'commander';
import { parseBudget, type BudgetSpec } from '../shared/pacing/budget-spec.js';
import { startSandbox } from '../../sandbox/index.js';
import { validatedArg, wholeNumberArg } from './args.js';
import type { CliIo } from './io.js';
import { listenOn } from './ports.js';

export interface SandboxCommandIo extends Pick<CliIo, 'stdout' | 'stopSignal'> {
  setExitCode(code: number): void;
}

interface SandboxFlags {
  port: number;
  latency?: number;
  budget?: BudgetSpec;
  window: 'fixed' | 'rolling';
  drift?: boolean;
}

const portArg = wholeNumberArg(0, 65_535, 'use a port from 0 to 65535');
const msArg = wholeNumberArg(0, Number.POSITIVE_INFINITY, 'use a whole number of milliseconds');
const budgetArg = validatedArg((value) => parseBudget(value, '--budget'));

export function registerSandboxCommand(program: Command, io: SandboxCommandIo): void {
  program
    .command('sandbox')
    .description('Run the local API sandbox (both endpoints, seeded data, faults) on 127.0.0.1.')
    .addOption(new Option('--port <n>', 'port to listen on').argParser(portArg).default(4010))
    .addOption(new Option('--latency <ms>', 'latency added to every response').argParser(msArg))
    .addOption(new Option('--budget <n/window>', 'answer 429 beyond this many analytics requests per window, e.g. 100/1h').argParser(budgetArg))
    .addOption(new Option('--window <kind>', 'how the budget window moves').choices(['fixed', 'rolling']).default('rolling'))
    .option('--drift', 'answer as after an API change: new fields on every dataset and the agent job, new enum values')
    .action(async (flags: SandboxFlags) => io.setExitCode(await runSandboxCommand(flags, io)));
}

async function runSandboxCommand(flags: SandboxFlags, io: SandboxCommandIo): Promise<number> {
  const sandbox = await listenOn(flags.port, '--port', () =>
    startSandbox({
      port: flags.port,
      ...(flags.latency === undefined ? {} : { latencyMs: flags.latency }),
      ...(flags.budget ? { budget: { requests: flags.budget.requests, windowMs: flags.budget.windowMs, window: flags.window } } : {}),
      ...(flags.drift === true ? { drift: true } : {}),
    }),
  );
  io.stdout.write(
    [
      `Sandbox API listening on ${sandbox.url}`,
      `Projects: ${sandbox.projectIds.join(', ')}`,
      ...(flags.budget ? [`Analytics budget: ${flags.budget.text} (${flags.window} window); beyond it: 429 with Retry-After`] : []),
      ...(flags.drift === true ? ['Drift mode: every answer carries fields and enum values this version does not know (as after an API change)'] : []),
      'Use it from another terminal with:',
      `  export MINTLIFY_API_URL=${sandbox.url} MINTLIFY_API_KEY=${sandbox.apiKey}`,
      '  npx mintlify-exporter export --project proj_large',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  await io.stopSignal;
  await sandbox.close();
  return 0;
}
