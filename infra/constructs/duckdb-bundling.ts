/**
 * The bundling of a function that runs DuckDB: the weekly report and the insights check (their
 * queries), and the export and the organisations' export worker (the monthly roll-ups they build
 * when a run settles a month, functions/warehouse/lake/rollup-build.ts).
 *
 * esbuild cannot bundle a `.node` addon, so `@duckdb/*` stays external and the installed
 * packages are copied from the project's `node_modules` into the asset after bundling — not
 * installed by CDK's `bundling.nodeModules`, which runs `npm install` at synth time: that needs
 * the network, is slow and may resolve other versions than the lock file's. Copying keeps the
 * synth offline and reproducible, with exactly the versions the tests ran. The native binding
 * is `@duckdb/node-bindings-linux-x64` (the one this project installs), so the function is
 * x86_64; a synth on a machine without it fails, naming the package, rather than deploying a
 * function that cannot load DuckDB.
 *
 * The export loads DuckDB only when it builds a roll-up (a dynamic import of a name the bundler
 * does not follow): its `index.js` and its cold start stay as they were, only the asset grows.
 *
 * With `queries` (the insights functions): the bundle is CommonJS, where `import.meta.url` does
 * not exist: it is defined as the URL of `<asset>/queries/index.js`, and the SQL files of `queries/` are copied to `<asset>/queries/`,
 * so `queries/questions.ts`, which reads `./<file>.sql` beside itself, finds each question in
 * the asset as in the repository (the only module of these bundles that reads a file of its own).
 *
 * DuckDB writes temp files and its extension folder under `$HOME`: only `/tmp` is writable in
 * Lambda, so the function's HOME is `/tmp` ({@link DUCKDB_ENVIRONMENT}).
 */
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NativeBundling } from './lambda-defaults.js';

/** The packages copied into the asset's `node_modules` (DuckDB's API, its loader, the linux-x64 binding, what the loader requires). */
export const DUCKDB_PACKAGES = ['@duckdb/node-api', '@duckdb/node-bindings', '@duckdb/node-bindings-linux-x64', 'detect-libc'] as const;

/**
 * The entry both insights functions share (each names its own export as its handler): one
 * bundle, one copy of DuckDB staged for them instead of two.
 */
export const DUCKDB_ENTRY = 'functions/insights/lambda.ts';

/** The environment DuckDB needs in Lambda. */
export const DUCKDB_ENVIRONMENT = { HOME: '/tmp' } as const;

const BUNDLE_URL = '__bundleUrl';

/** What {@link duckDbBundling} puts in the asset besides DuckDB. */
export interface DuckDbBundlingOptions {
  /** The SQL files of `queries/`, and `import.meta.url` pointing beside them (the insights functions). @default true */
  readonly queries?: boolean;
}

export function duckDbBundling(options: DuckDbBundlingOptions = {}): NativeBundling {
  const queries = options.queries ?? true;
  return {
    architecture: lambda.Architecture.X86_64,
    externalModules: ['@duckdb/*'],
    ...(queries
      ? {
          banner: `const ${BUNDLE_URL} = require("url").pathToFileURL(require("path").join(__dirname, "queries", "index.js")).href;`,
          define: { 'import.meta.url': BUNDLE_URL },
        }
      : {}),
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        ...DUCKDB_PACKAGES.map(
          (name) =>
            `test -d "${inputDir}/node_modules/${name}" || { echo "${name} is not installed in ${inputDir}/node_modules: run npm ci on linux x64 before cdk synth" >&2; exit 1; }`,
        ),
        `mkdir -p "${outputDir}/node_modules/@duckdb"`,
        ...DUCKDB_PACKAGES.map((name) => `cp -RL "${inputDir}/node_modules/${name}" "${outputDir}/node_modules/${name}"`),
        ...(queries ? [`mkdir -p "${outputDir}/queries"`, `cp "${inputDir}"/queries/*.sql "${outputDir}/queries/"`] : []),
      ],
    },
  };
}
