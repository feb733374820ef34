/**
 * Bundles a file the way the CDK app bundles the Lambda handlers
 * (infra/constructs/lambda-defaults.ts): CommonJS, platform node, target node20, minified,
 * `@aws-sdk/*` left to the runtime, and the tsconfig-raw override that keeps esbuild from
 * adding "use strict" (parquetjs-lite's generated Thrift code only runs in sloppy mode).
 * Bundles are written under bench/out/, so the external `@aws-sdk/*` resolve from the
 * project's node_modules as the Lambda runtime would provide them. Name them `.cjs`: the
 * project's package.json says `"type": "module"`, which would load a `.js` bundle as (strict) ESM.
 */
import { stat } from 'node:fs/promises';
import { build, type Metafile } from 'esbuild';

export interface Bundle {
  readonly file: string;
  /** Size of the minified JavaScript (the source map is a separate file, as in the asset). */
  readonly bytes: number;
  readonly metafile: Metafile;
}

/**
 * `sdk: 'external'` (the default, what the CDK app does) leaves `@aws-sdk/*` to the runtime's
 * copy; `'bundled'` tree-shakes and minifies the SDK clients into the bundle, to compare.
 */
export async function bundleLikeLambda(entry: string, outfile: string, sdk: 'external' | 'bundled' = 'external'): Promise<Bundle> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    external: sdk === 'external' ? ['@aws-sdk/*'] : [],
    tsconfigRaw: { compilerOptions: { alwaysStrict: false, verbatimModuleSyntax: true, useDefineForClassFields: true } },
    metafile: true,
    logLevel: 'silent',
  });
  return { file: outfile, bytes: (await stat(outfile)).size, metafile: result.metafile };
}

/** The inputs that contribute most bytes to the output, grouped by npm package (or project folder). */
export function topInputs(metafile: Metafile, count = 8): { readonly input: string; readonly bytes: number }[] {
  const byGroup = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const group = groupOf(input);
      byGroup.set(group, (byGroup.get(group) ?? 0) + bytesInOutput);
    }
  }
  return [...byGroup.entries()]
    .map(([input, bytes]) => ({ input, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

function groupOf(input: string): string {
  const marker = 'node_modules/';
  const at = input.lastIndexOf(marker);
  if (at === -1) return input.split('/').slice(0, 2).join('/');
  const rest = input.slice(at + marker.length).split('/');
  return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? input);
}
