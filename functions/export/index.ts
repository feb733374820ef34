/**
 * The export's front door: what the rest of the house (the CLI above all) uses of it. The
 * Lambda's entry is handler.ts; a run is wired once for both (`wireRun`, deps.ts). A module
 * outside export/ imports export/ through this file only (test/unit/docs/import-circles.test.ts).
 */
export { createExportDeps, openExportDestination, wireRun, type ExportDeps, type ExportOverrides, type RunHooks, type WiredRun } from './deps.js';
export { FLAG_NAMES, requestedDays } from './event.js';
export { afterSpending, budgetTime } from './estimates.js';
export { readPeriodFill } from './fill.js';
export { checkLakeKey, forgetPeople, forgetPerson, inspectLake, type ForgetResult } from './forget/index.js';
export { describeShare, ERASURES_PREFIX, EXPIRED_PREFIX, readErasureRecords, type ErasureRecord, type ErasureShare } from './erasures.js';
export { registerDays, type GlueSend, type TableRegistration } from '../warehouse/partitions.js';
export { unitRows } from './manifest.js';
export { BACKLOG_PREFIX, daysBefore, planRequested, planScheduled, type PlannedUnit } from './plan.js';
export { exportPolicy, type ExportPolicy, type RunControl } from './policy.js';
export { retentionCutoff } from './retention.js';
export { describeUnitDrift } from './drift-text.js';
export { parseRunRecords, type RunCounts } from './run-log.js';
export { runExport, type RunRequest, type RunResult } from './run.js';
export { runUnits, type RunDeps, type RunEvent, type RunSummary, type UnitLoop, type UnitResult } from './run-units.js';
export { unknownProjectReason } from './run-stops.js';
export { localStateDir } from './state-folder.js';
export { dueAt, lastDueDay } from './settle.js';
export { readExportStatus, type ExportStatus } from './status.js';
export { completeUnits, readUnitStates, unitView, type UnitState, type UnitView } from './units.js';
export { unitKey, unitLabel, unitsOf, type Unit } from './unit-id.js';
