/**
 * Role: builds the samples' lake (scripts/sample-run.ts: the docs' `npm start` run, which the
 * new-user tests read) into the lake cache and exits. The test sequencer (sequencer.ts) starts it
 * in the background when a run includes a file that reads that lake, so the build overlaps the
 * other files instead of keeping a worker waiting on it.
 */
import { sampleRun } from '../../scripts/sample-run.js';
import { removeTempDirs } from './files.js';

await sampleRun();
await removeTempDirs();
