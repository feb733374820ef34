// Preloaded into a benchmarked invocation (bench/lib/weekly-function.ts): prints the process's own
// peak resident memory at exit. The kernel's VmHWM starts afresh at exec; getrusage's maxrss does
// not (Linux keeps it across execve), so a child of a large benchmark process reports its parent's size.
process.on('exit', () => {
  try {
    const status = require('node:fs').readFileSync('/proc/self/status', 'utf8');
    const peak = /VmHWM:\s+(\d+) kB/.exec(status);
    if (peak) process.stderr.write(`\n@@VMHWM ${peak[1]}\n`);
  } catch {
    // Not Linux: the invocation's maxRSS stands.
  }
});
