#!/usr/bin/env node
/**
 * The entry point: starts the command line (program.ts) on a V8 heap sized for a streaming tool.
 *
 * Node 24 lets the young generation grow to 64 MB per semi-space, and a run that holds about
 * 35 MB alive peaked at 300 MB or more; 16 MB semi-spaces cut about 80 MB from that peak at no
 * CPU cost that the benchmarks could measure (BENCHMARKS.md, memory). The size can only be set when
 * V8 starts, so this process replaces itself once, before anything else is loaded, with the same
 * arguments plus the flags (same pid, same standard streams and signals). Where a flag is set
 * already (NODE_OPTIONS, the command line) it is kept; where the runtime cannot replace itself, it
 * goes on as is.
 *
 * The old generation gets a fixed growth factor: V8 lets it grow to up to four times what
 * survived its last full collection when collecting looks expensive next to the program's own
 * work, which a long run over a big file always looks like; on Node 24 a 1,000,000-row run then
 * peaked about 50 MB above a 100,000-row one. `--heap-growing-percent=100` lets it double at
 * most: 1,000,000 elevation rows peaked at 203 MB against 257 MB, 100,000 geocoded rows at 210
 * against 259 MB, for 4-6% more CPU time (medians of 3 and 6, alternated; BENCHMARKS.md).
 *
 * The same step caps glibc's malloc arenas at 2 (MALLOC_ARENA_MAX, read only when a process
 * starts; a value the user set is kept): by default each of Node's threads that allocates gets
 * an arena of its own, up to 8 per core, each keeping its own high-water mark. The cap took about
 * 9 MB off the peak of 100,000 elevation rows (200 -> 191 MB, medians of 6, alternated) at the
 * same CPU time. Other C libraries ignore the variable.
 */
import { EXIT_STATUS } from '../errors.js';
import { runtimeProblem } from './_runtime.js';

const tooOld = runtimeProblem(process.versions.node);
if (tooOld !== undefined) {
  process.stderr.write(tooOld);
  process.exit(EXIT_STATUS.usage);
}

const FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=100'];
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
/** A flag of ours the user (or our own earlier start) has not set, in any value. */
const missing = FLAGS.filter((flag) => !given.some((arg) => arg.startsWith(flag.split('=')[0] as string)));
if (missing.length > 0 && typeof process.execve === 'function' && process.env.GEOBATCH_HEAP !== 'default') {
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
      { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
    );
  } catch {
    // Not permitted here (a sandbox, a read-only binary): the default heap does the job too.
  }
}
await import('./program.js');
