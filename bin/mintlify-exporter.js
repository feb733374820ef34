#!/usr/bin/env node
// Runs the CLI from its cached bundle (bin/bundle.js: built from the TypeScript source when a
// source changed), or, when there can be none, the source itself through tsx's loader: the
// package needs no build step either way.
import { pathToFileURL } from 'node:url';
import { cliBundle } from './bundle.js';

const bundle = await cliBundle();
if (bundle !== undefined) {
  const { runCli } = await import(pathToFileURL(bundle).href);
  await runCli();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { runCli } = await import('../functions/cli.ts');
  await runCli();
}
