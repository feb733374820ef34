/**
 * `npm run docs`: regenerates the parts of the manual that are generated from the code — the
 * column reference and the "Your warehouse" SQL of docs/warehouse.md (from
 * functions/warehouse/tables.ts), the table of
 * environment variables of docs/configuration.md (from the settings table of
 * functions/settings/table.ts), its table of what a day costs (from the dataset catalog,
 * functions/warehouse/catalog.ts), the bucket map of docs/design.md (from
 * functions/warehouse/lake/layout.ts), the flag tables of docs/cli.md (from the commander program,
 * functions/cli/program.ts), the code map of docs/code-map.md (each source file's header
 * sentence, scripts/code-map.ts), the test count of docs/tests.md (scripts/test-count.ts), the
 * cost estimate of docs/deploy.md (scripts/cost-estimate.ts), and the command output quoted in
 * README.md and docs/report.md (a real sandbox run: scripts/sample-run.ts — minutes the first
 * time, then reused while the tree is unchanged). Run it after changing any of them; `npm test`
 * fails while a file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { removeTempDirs } from './lib/temp-dirs.js';
import { withBucketMap } from './bucket-map.js';
import { withCliReference } from './cli-reference.js';
import { withCodeMap } from './code-map.js';
import { withColumnReference } from './column-reference.js';
import { withCostEstimate } from './cost-estimate.js';
import { withDeployReference } from './deploy-reference.js';
import { sampleRun } from './sample-run.js';
import { withReadmeSamples, withReportSamples } from './samples.js';
import { withSettingsReference } from './settings-reference.js';
import { withTestCount } from './test-count.js';
import { withCostReference } from './cost-reference.js';
import { withWarehouseSql } from './warehouse-sql.js';

// The samples' sandbox run: minutes the first time, then reused while the tree is unchanged.
const samples = await sampleRun();

const GENERATED: readonly { readonly file: string; readonly what: string; readonly regenerate: (doc: string) => string }[] = [
  {
    file: 'docs/warehouse.md',
    what: 'column reference and "Your warehouse" SQL (functions/warehouse/tables.ts)',
    regenerate: (doc) => withWarehouseSql(withColumnReference(doc)),
  },
  {
    file: 'docs/configuration.md',
    what: 'table of variables (functions/settings/table.ts) and of what a day costs (functions/warehouse/catalog.ts)',
    regenerate: (doc) => withCostReference(withSettingsReference(doc)),
  },
  { file: 'docs/cli.md', what: 'flag tables (functions/cli/program.ts)', regenerate: withCliReference },
  { file: 'docs/code-map.md', what: "map of every source file (each file's header comment)", regenerate: (doc) => withCodeMap(doc) },
  { file: 'docs/tests.md', what: "test count (each project's files and tests as written)", regenerate: withTestCount },
  { file: 'docs/design.md', what: 'bucket map (functions/warehouse/lake/layout.ts)', regenerate: withBucketMap },
  {
    file: 'docs/deploy.md',
    what: 'tables of context options and stack outputs (infra/stack.ts, infra/context-options.ts) and the cost estimate (scripts/cost-estimate.ts)',
    regenerate: (doc) => withCostEstimate(withDeployReference(doc)),
  },
  { file: 'README.md', what: 'samples of npm start and status (a sandbox run, scripts/sample-run.ts)', regenerate: (doc) => withReadmeSamples(doc, samples) },
  {
    file: 'docs/report.md',
    what: "sample of report and npm start's figures (a sandbox run, scripts/sample-run.ts)",
    regenerate: (doc) => withReportSamples(doc, samples),
  },
];

for (const { file, what, regenerate } of GENERATED) {
  const url = new URL(`../${file}`, import.meta.url);
  const before = await readFile(url, 'utf8');
  const after = regenerate(before);
  if (after === before) {
    process.stdout.write(`${file}: the ${what} is up to date\n`);
  } else {
    await writeFile(url, after);
    process.stdout.write(`${file}: ${what} regenerated\n`);
  }
}
await removeTempDirs();
