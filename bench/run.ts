/**
 * `npm run bench`: runs every benchmark in order, prints one table and writes
 * bench/out/results.json (`{ name: { value, unit, goal, holds } }`) plus details.json.
 *
 * `npm run bench -- requests polling` runs only the named benchmarks (handy while tuning);
 * figure 3's goal needs figure 2's wall time, so `encoding` runs `overhead` first.
 * `memory-assistant` runs only the assistant part of `memory` (which runs it too).
 * Never part of `npm test`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchBudget } from './budget.js';
import { benchColdStart } from './cold-start.js';
import { benchEffects } from './effects.js';
import { benchEncoding } from './encoding.js';
import { benchForget } from './forget.js';
import { benchGaps } from './gaps.js';
import { benchIceberg } from './iceberg.js';
import { benchLake } from './lake.js';
import { benchLakeBuild } from './lake-build.js';
import { benchLakeYear } from './lake-year.js';
import { formatTable, progress, saveResults, type Figures } from './lib/figures.js';
import { benchMasking } from './masking.js';
import { benchAssistantMemory, benchMemory } from './memory.js';
import { benchOrgs } from './orgs.js';
import { benchOverhead } from './overhead.js';
import { benchPolling } from './polling.js';
import { benchReport } from './report.js';
import { benchReportFunction } from './report-function.js';
import { benchRequests } from './requests.js';
import { benchScope } from './scope.js';
import { benchTopics } from './topics.js';
import { benchWriter } from './writer.js';

const OUT_DIR = fileURLToPath(new URL('./out/', import.meta.url));
const ALL = [
  'requests',
  'overhead',
  'masking',
  'encoding',
  'memory',
  'memory-assistant',
  'cold-start',
  'polling',
  'budget',
  'report',
  'gaps',
  'report-function',
  'writer',
  'effects',
  'orgs',
  'forget',
  'scope',
  'iceberg',
  'topics',
  'lake',
  'lake-build',
  'lake-year',
] as const;
type Name = (typeof ALL)[number];

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((arg) => !(ALL as readonly string[]).includes(arg));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s) ${unknown.join(', ')}: choose from ${ALL.join(', ')}\n`);
    return 2;
  }
  const selected = new Set<Name>(argv.length === 0 ? ALL.filter((name) => name !== 'memory-assistant') : (argv as Name[]));
  if (selected.has('encoding')) selected.add('overhead');
  const started = performance.now();
  const figures: Figures = {};
  const details: Record<string, unknown> = { startedAt: new Date().toISOString(), node: process.version };
  const add = (result: { figures: Figures; details?: Record<string, unknown> }) => {
    Object.assign(figures, result.figures);
    Object.assign(details, result.details ?? {});
  };

  if (selected.has('requests')) add(await benchRequests());
  let overheadWallMs: number | undefined;
  if (selected.has('overhead')) {
    const overhead = await benchOverhead();
    overheadWallMs = overhead.wallMs;
    add(overhead);
  }
  if (selected.has('encoding') && overheadWallMs !== undefined) add(await benchEncoding(overheadWallMs));
  if (selected.has('masking')) add(await benchMasking());
  if (selected.has('memory')) add(await benchMemory(OUT_DIR));
  else if (selected.has('memory-assistant')) add(await benchAssistantMemory(OUT_DIR));
  if (selected.has('cold-start')) add(await benchColdStart(OUT_DIR));
  if (selected.has('polling')) add(await benchPolling());
  if (selected.has('budget')) add(await benchBudget());
  if (selected.has('report')) add(await benchReport());
  if (selected.has('gaps')) add(await benchGaps());
  if (selected.has('report-function')) add(await benchReportFunction());
  if (selected.has('lake')) add(await benchLake());
  if (selected.has('lake-build')) add(await benchLakeBuild());
  if (selected.has('lake-year')) add(await benchLakeYear());
  if (selected.has('writer')) add(await benchWriter());
  if (selected.has('effects')) add(await benchEffects());
  if (selected.has('orgs')) add(await benchOrgs());
  if (selected.has('forget')) add(await benchForget());
  if (selected.has('scope')) add(await benchScope());
  if (selected.has('iceberg')) add(await benchIceberg());
  if (selected.has('topics')) add(await benchTopics());

  const seconds = (performance.now() - started) / 1000;
  details['durationS'] = Math.round(seconds);
  const file = await saveResults(OUT_DIR, figures, details);
  process.stdout.write(`${formatTable(figures)}\n\n`);
  const missed = Object.entries(figures)
    .filter(([, f]) => f.holds === false)
    .map(([name]) => name);
  process.stdout.write(
    `${Object.keys(figures).length} figures, ${missed.length} goal(s) missed${missed.length ? `: ${missed.join(', ')}` : ''}; ` +
      `${seconds.toFixed(0)} s; written to ${path.relative(process.cwd(), file)}\n`,
  );
  progress('done');
  // A missed goal is a result, not a failure of the benchmark run.
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
