/**
 * `mintlify-exporter plan [--date D | --from D1 --to D2] [--project ID]... [--dataset NAME]... [--out DEST] [--json]`:
 * the units to do, their estimated requests and the time the budget needs. Without days, the
 * hourly run's plan. Reads the destination and the ledger only: sends no API request.
 */
import type { Command } from 'commander';
import { BACKLOG_PREFIX, FLAG_NAMES, budgetTime, lastDueDay, planRequested, planScheduled, requestedDays } from '../export/index.js';
import { sandboxPages } from './sandbox-sizes.js';
import { runsAgainstSandbox } from './api-target.js';
import { loadConfig } from '../settings/config.js';
import { writeJson } from './render/json.js';
import { planJson, printPlan } from './render/plan.js';
import { scopeOptions, type ExportCommandIo, type ScopeFlags } from './scope.js';
import { prepareReadScope } from './read-scope.js';

export function registerPlanCommand(program: Command, io: ExportCommandIo): void {
  scopeOptions(program.command('plan').description('List the units to do, their estimated requests and the time the budget needs (sends no request).')).action(
    async (flags: ScopeFlags) => io.setExitCode(await runPlanCommand(flags, io)),
  );
}

async function runPlanCommand(flags: ScopeFlags, io: ExportCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const now = io.now();
  const days = requestedDays(flags, now, FLAG_NAMES);
  const { projects, datasets, destination, store, ledger } = await prepareReadScope(flags, config, io);
  const plan =
    days === undefined
      ? await planScheduled(
          {
            now,
            settleHours: config.settleHours,
            healDays: config.healDays,
            refreshDays: config.refreshDays,
            projects,
            datasets,
            backlog: (await store.list<never>(BACKLOG_PREFIX)).map((i) => i.value),
          },
          destination,
        )
      : await planRequested(
          // Against the embedded sandbox its sizes are known before any page (sandbox-sizes.ts).
          {
            days,
            projects,
            datasets,
            force: false,
            now,
            ...(runsAgainstSandbox(config, projects) ? { sizedPages: sandboxPages } : {}),
          },
          destination,
        );
  const snapshot = await ledger.snapshot();
  // The embedded sandbox (not paced) is what an export with this configuration would use.
  const unpaced = runsAgainstSandbox(config, projects);
  const requests = plan.units.reduce((sum, u) => sum + u.estimate, 0);
  const view = {
    destination: destination.url,
    units: plan.units,
    requests,
    budgetMs: unpaced ? 0 : budgetTime(snapshot, requests, now).ms,
    unpaced,
    snapshot,
    now,
    ...(days === undefined ? { scheduledLastDay: lastDueDay(now, config.settleHours) } : {}),
  };
  if (flags.json) writeJson(io.stdout, planJson(view));
  else printPlan(view, io.stdout);
  return 0;
}
