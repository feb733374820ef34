/** `npm start`: scripts/first-look.ts on this process's output, environment and clock. */
import { processIo } from '../functions/cli.js';
import { runStart } from './first-look.js';

process.exitCode = await runStart(processIo(), process.argv.slice(2));
