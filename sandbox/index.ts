/**
 * The local API sandbox: both endpoints of the service on 127.0.0.1 with seeded data, the
 * follow-up state machine and fault injection. Used by tests, benchmarks, `npm start` and
 * `mintlify-exporter sandbox`.
 */
export {
  SANDBOX_API_KEY,
  startSandbox,
  type RequestLogEntry,
  type Sandbox,
  type SandboxOptions,
  type SandboxRoute,
} from './server.js';
export { DEFAULT_PROJECTS, MAX_SYNTH_PATHS, type ProjectSeed } from './data.js';
export { parseFaultRule, type FaultKind, type FaultMatch, type FaultRoute, type FaultRule, type FaultSpec } from './faults.js';
export type { JobRecord, JobState, RunScript } from './agent.js';
export { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from './visitors.js';
