/**
 * Child process of the `topics` benchmark: one `findGaps` or one `buildReport` over a lake of
 * hostile questions (bench/lib/hostile-questions.ts), in a fresh Node process (tsx), then its
 * time after module loading and its own peak RSS. Input: one JSON argument; output: one JSON
 * line on stdout.
 */
import { DEFAULT_TOP } from '../../functions/cli/gaps.js';
import { findGaps } from '../../functions/gaps/find.js';
import { buildReport } from '../../functions/report/report.js';
import { periodOf } from '../../functions/warehouse/period.js';
import { parseLakeTarget } from '../../functions/warehouse/lake/target.js';

export type TopicsChildInput =
  | { readonly run: 'gaps'; readonly root: string; readonly days: readonly string[] }
  | { readonly run: 'report'; readonly root: string; readonly from: string; readonly to: string; readonly now: number };

export interface TopicsChildOutput {
  readonly ms: number;
  /** CPU time of the run (every thread), ms. */
  readonly cpuMs: number;
  /** `process.resourceUsage().maxRSS`, KiB. */
  readonly maxRssKiB: number;
  /** Gaps ranked (gaps) or completed jobs measured (report). */
  readonly count: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as TopicsChildInput;
const cpu = process.cpuUsage();
const started = performance.now();
const count =
  input.run === 'gaps'
    ? (await findGaps({ target: parseLakeTarget(input.root, '--out'), days: input.days, projects: [], top: DEFAULT_TOP })).gaps.length
    : (await buildReport({ target: parseLakeTarget(input.root, '--out'), period: periodOf(input.from, input.to), projects: [] }, { now: () => input.now }))
        .fixes.length;
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
const output: TopicsChildOutput = { ms, cpuMs: (used.user + used.system) / 1000, maxRssKiB: process.resourceUsage().maxRSS, count };
process.stdout.write(`${JSON.stringify(output)}\n`);
