/** The types of bin/bundle.js (plain JavaScript: the bin runs before any TypeScript loader). */
export function cliBundle(options?: {
  /** The repository root. @default the folder above bin/ */
  readonly root?: string;
  /** The entry, relative to `root`. @default 'functions/cli.ts' */
  readonly entry?: string;
  /** Where bundles are kept. @default `<root>/node_modules/.cache/mintlify-exporter` */
  readonly cache?: string;
}): Promise<string | undefined>;
