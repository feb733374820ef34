/**
 * The command output quoted in README.md and docs/report.md is what a real run prints
 * (scripts/samples.ts: `npm start` against the embedded sandbox on a fixed clock, then `status`
 * and `report`): a doc whose samples are stale fails here until `npm run docs` rewrites them.
 * The run is made once per content of the tree (test/helpers/lake-cache.ts).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_FOLDER, sampleRun, type SampleRun } from '../../../scripts/sample-run.js';
import { startSample, withReadmeSamples, withReportSamples } from '../../../scripts/samples.js';
import { SIZES } from '../../../scripts/cost-estimate.js';
import { removeTempDirs } from '../../helpers/files.js';

const read = (file: string) => readFile(new URL(`../../../${file}`, import.meta.url), 'utf8');
let run: SampleRun;

beforeAll(async () => {
  run = await sampleRun();
}, 900_000);

afterAll(removeTempDirs);

describe('the samples of the docs', () => {
  it("README.md shows npm start's and status's output as the run printed them (npm run docs)", async () => {
    const doc = await read('README.md');
    expect(withReadmeSamples(doc, run), 'README.md is stale: run `npm run docs`').toBe(doc);
  });

  it('docs/report.md shows the report line and the export figures of the run (npm run docs)', async () => {
    const doc = await read('docs/report.md');
    expect(withReportSamples(doc, run), 'docs/report.md is stale: run `npm run docs`').toBe(doc);
  });

  it("are the run's own figures: 7 datasets × 3 projects × 14 days, the requests the export summary says", () => {
    expect(run.units).toBe(7 * 3 * 14);
    expect(run.start).toContain(`${run.units} of ${run.units} unit(s) exported to ${SAMPLE_FOLDER}/data with ${run.requests} API request(s)`);
    expect(startSample(run)).toContain(`with ${run.requests} API request(s)`);
    // Nothing of the machine the run was made on.
    expect(`${run.start}${run.status}${run.report}`).not.toMatch(/\/tmp\/|mintlify-samples-/);
  });

  it("docs/deploy.md's cost estimate sizes a site by this run: each size's requests and bytes a day are its sandbox project's", () => {
    for (const size of SIZES) {
      const measured = run.perDay[size.like];
      expect(measured, size.like).toBeDefined();
      expect(size.apiRequests, `${size.name}: requests a day of ${size.like}`).toBe(Math.round(measured?.requests ?? 0));
      // Rounded in the script to a few digits: within 2 %.
      expect(Math.abs(size.parquetBytes - (measured?.bytes ?? 0)) / (measured?.bytes ?? 1), `${size.name}: bytes a day of ${size.like}`).toBeLessThan(0.02);
    }
  });
});
