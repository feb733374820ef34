import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SamplesLastSequencer from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    // One worker more than the cores: the integration files wait on their servers (sandbox,
    // fauxqs, dynalite on loopback), child processes and timers, so two workers on two cores left
    // a quarter of the CPU idle. Side by side on 2 cores, `npm test`: 273 s with 2 workers, 239 s
    // with 3, 226 s with 4 (load 5–6, and no test bound to the wall clock to fail under it).
    maxWorkers: Math.max(2, availableParallelism()) + 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The files reading the samples' lake last, the lake built meanwhile (test/helpers/sequencer.ts).
    sequence: { sequencer: SamplesLastSequencer },
    // `npm test` runs all three; `npm run test:unit` (seconds) etc. run one.
    // The files of one worker share their modules instead of importing them again each (the
    // integration and infra files import most of the code, the AWS SDK, CDK and DuckDB: that
    // was a fifth of the suite's time). Each file still starts and stops its own servers and
    // temp folders; a file that replaces a module (vi.mock) loads what uses it again itself.
    isolate: false,
    // Each module's transform (TypeScript to JavaScript, imports rewritten) kept on disk between
    // runs, named by the file's path and content, vitest's version and this config
    // (node_modules/.experimental-vitest-cache; `npm ci` removes it, so a fresh clone's first run,
    // CI's, builds it). A worker still imports every module it runs: only the transform is reused.
    // `--project unit` side by side, 3 Dec 2026 (docs/tests.md): transform 40 s → 7 s, import 82 s → 42 s summed.
    experimental: { fsModuleCache: true },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'] } },
      // Type tests (`*.test-d.ts`: the settings' and datasets' type machinery), and the type check
      // of the whole tree: one tsc over tsconfig.json (incremental, its state kept between runs by
      // vitest), where a type error in any file fails the run as an unhandled source error. A
      // separate `tsc --noEmit` beside `vitest run` checked every file a second time (about a
      // minute of CPU on 2 cores, where the incremental check of an unchanged tree takes half).
      {
        extends: true,
        test: { name: 'types', include: [], typecheck: { enabled: true, only: true, include: ['test/types/**/*.test-d.ts'], tsconfig: 'tsconfig.json' } },
      },
    ],
  },
});
