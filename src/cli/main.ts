#!/usr/bin/env node
/**
 * The entry point: starts the command line (program.ts) on a V8 heap sized for a streaming tool.
 *
 * Node 24 lets the young generation grow to 64 MB per semi-space, and a run that holds about
 * 35 MB alive peaked at 300 MB or more; 16 MB semi-spaces cut about 80 MB from that peak at no
 * CPU cost that the benchmarks could measure (BENCHMARKS.md, memory). The size can only be set when
 * V8 starts, so this process replaces itself once, before anything else is loaded, with the same
 * arguments plus the flag (same pid, same standard streams and signals). Where the flag is set
 * already (NODE_OPTIONS, the command line) or the runtime cannot replace itself, it goes on as is.
 *
 * The same step caps glibc's malloc arenas at 2 (MALLOC_ARENA_MAX, read only when a process
 * starts; a value the user set is kept): by default each of Node's threads that allocates gets
 * an arena of its own, up to 8 per core, each keeping its own high-water mark. The cap took about
 * 9 MB off the peak of 100,000 elevation rows (200 -> 191 MB, medians of 6, alternated) at the
 * same CPU time. Other C libraries ignore the variable.
 */
const FLAG = '--max-semi-space-size';
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) =>
  arg.startsWith(FLAG),
);
if (!given && typeof process.execve === 'function' && process.env.GEOBATCH_HEAP !== 'default') {
  try {
    process.execve(
      process.execPath,
      [process.execPath, `${FLAG}=16`, ...process.execArgv, ...process.argv.slice(1)],
      { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
    );
  } catch {
    // Not permitted here (a sandbox, a read-only binary): the default heap does the job too.
  }
}
await import('./program.js');
