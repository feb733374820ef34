/**
 * Role: lakes built once and shared (scripts/lib/lake-cache.ts, which `npm run docs` uses too:
 * a script imports no test helper).
 */
export { builtFolder, cachedLake, LAKE_CACHE } from '../../scripts/lib/lake-cache.js';
