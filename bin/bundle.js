/**
 * The CLI as one JavaScript file: built from the TypeScript source with esbuild (which tsx
 * brings) and kept in `node_modules/.cache/mintlify-exporter/` under the hash of the sources it
 * was built from. A start then loads one file instead of some 200 modules through tsx's loader
 * (about 0.7 s to the first line instead of 1.3 s); a source changed since is built again (about
 * half a second), so the package still needs no build step. Each module keeps its own
 * `import.meta.url` (the SQL of queries/, the sandbox's thread entry are found beside their
 * source). Anything going wrong (a read-only install, no esbuild) gives undefined: the bin then
 * runs the source under tsx, as before.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('../', import.meta.url));

/** The esbuild that builds the bundle: another version builds it again. */
function esbuildVersion() {
  try {
    return JSON.parse(readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')).version;
  } catch {
    return 'none';
  }
}

/** sha256 of esbuild's version and each file's path and bytes (paths relative to `root`, in the order given). */
function hashOf(root, files) {
  const hash = createHash('sha256');
  hash.update(`esbuild ${esbuildVersion()}\u0000`);
  for (const file of files) {
    hash.update(`${file}\u0000`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\u0000');
  }
  return hash.digest('hex');
}

/** Writes `bytes` to `file` through a temp file beside it: a reader sees no half-written file. */
function writeAtomically(file, bytes) {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, bytes);
  renameSync(temp, file);
}

/** `import.meta.url` of each source module as its own file's URL, not the bundle's. */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.split(path.sep).includes('node_modules')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/**
 * The path of the bundle of `entry` (relative to `root`), built unless the cache holds one of
 * the same sources; undefined when it can be neither read nor built.
 */
export async function cliBundle({ root = REPO, entry = 'functions/cli.ts', cache = path.join(root, 'node_modules', '.cache', 'mintlify-exporter') } = {}) {
  const manifestFile = path.join(cache, `${path.basename(entry)}.json`);
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (hashOf(root, manifest.inputs) === manifest.hash) return path.join(cache, manifest.bundle);
  } catch {
    // No bundle yet, or a source that is gone: build one.
  }
  try {
    const { build } = await import('esbuild');
    const result = await build({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [sourceUrls],
    });
    const inputs = Object.keys(result.metafile.inputs).sort();
    const hash = hashOf(root, inputs);
    const bundle = `${path.basename(entry, path.extname(entry))}-${hash.slice(0, 16)}.mjs`;
    mkdirSync(cache, { recursive: true });
    writeAtomically(path.join(cache, bundle), result.outputFiles[0].contents);
    writeAtomically(manifestFile, JSON.stringify({ inputs, hash, bundle }));
    return path.join(cache, bundle);
  } catch {
    return undefined;
  }
}
