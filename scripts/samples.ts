/**
 * The samples of README.md and docs/report.md, written between their markers from a real run
 * (scripts/sample-run.ts): `npm start`'s output shortened, `status`'s and `report`'s as printed,
 * and the export's figures for the prose.
 */
import { FIRST_RUN_DAYS } from './first-look.js';
import { blockMarkers, withBlock } from './generated-block.js';
import type { SampleRun } from './sample-run.js';

const SOURCE = 'a sandbox run (scripts/samples.ts)';
const FENCE = '```';
/** Rows of each DuckDB table kept in the README's `npm start` sample. */
const TABLE_ROWS = 1;

/**
 * `npm start`'s output, shortened: every line but the per-unit ones of days and projects other
 * than the last day's largest project, and each table cut to its first rows.
 */
export function startSample(run: SampleRun): string {
  const lines = run.start.trimEnd().split('\n');
  const unitLines = lines.filter((line) => line.startsWith('ok '));
  const lastDay =
    unitLines
      .map((line) => /(\d{4}-\d{2}-\d{2}):/.exec(line)?.[1] ?? '')
      .sort()
      .at(-1) ?? '';
  const shown: string[] = [];
  let skipped = false;
  let tableRows = -1;
  for (const line of lines) {
    if (line.startsWith('ok ') && !(line.includes(' proj_large ') && line.includes(`${lastDay}:`))) {
      if (!skipped) shown.push('…');
      skipped = true;
      continue;
    }
    // A table: its header, then rows indented by two spaces, then maybe "  … N more".
    if (line.startsWith('  ')) {
      tableRows += 1;
      if (tableRows === TABLE_ROWS + 1) shown.push('  …');
      if (tableRows > TABLE_ROWS) continue;
    } else {
      tableRows = -1;
    }
    shown.push(line);
  }
  return shown.join('\n');
}

export const SAMPLE_BLOCKS = {
  start: blockMarkers('npm-start-sample', SOURCE),
  status: blockMarkers('status-sample', SOURCE),
  report: blockMarkers('report-sample', SOURCE),
  startFigures: blockMarkers('npm-start-figures', SOURCE),
};

/** README.md with its samples from `run`. */
export function withReadmeSamples(doc: string, run: SampleRun): string {
  const start = `${FENCE}\n$ npm start\n${startSample(run)}\n${FENCE}`;
  const status = `${FENCE}\n$ npm run --silent cli -- status --days 2\n${run.status.trimEnd()}\n${FENCE}`;
  return withBlock(withBlock(doc, SAMPLE_BLOCKS.start, start), SAMPLE_BLOCKS.status, status);
}

/** docs/report.md with its samples from `run`. */
export function withReportSamples(doc: string, run: SampleRun): string {
  const report = `${FENCE}\n$ mintlify-exporter report --days 30\n${run.report.trimEnd()}\n${FENCE}`;
  const figures = `Against the embedded sandbox it exports ${FIRST_RUN_DAYS} days: ${run.units.toLocaleString('en-US')} units with ${run.requests.toLocaleString('en-US')} API requests.`;
  return withBlock(withBlock(doc, SAMPLE_BLOCKS.report, report), SAMPLE_BLOCKS.startFigures, figures);
}
