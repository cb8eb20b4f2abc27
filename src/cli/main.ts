#!/usr/bin/env node
/**
 * The entry point: starts the command line (program.ts) on a V8 heap sized for a streaming tool.
 *
 * A run holds a few tens of megabytes alive (the modules, the reorder window, the dedup cache);
 * what V8 keeps resident around that is set by two sizes that can only be given when V8 starts,
 * so this process replaces itself once, before anything else is loaded, with the same arguments
 * plus the flags (same pid, same standard streams and signals). Where a flag is set already
 * (NODE_OPTIONS, the command line) it is kept; where the runtime cannot replace itself, it goes
 * on as is.
 *
 * - `--max-semi-space-size=8`: Node 24 lets the young generation grow to 2 x 64 MB. 2 x 16 MB
 *   cut about 80 MB from the peak of a 100,000-row run at no measurable cost; 2 x 8 MB, with the
 *   next flag, takes another 20-25 MB off it (100,000 elevation rows, report on: 168-170 MB with
 *   16 MB and a doubling old generation, 142-148 MB with these two, 4 runs each) for about 3%
 *   more CPU in collections on 100,000 geocoded rows (GC pauses 559 -> 705-768 ms of 7.5-10 s)
 *   and about 4% on elevation.
 * - `--heap-growing-percent=50`: V8 lets the old generation grow to up to four times what
 *   survived its last full collection when collecting looks expensive next to the program's own
 *   work, which a long run over a big file always looks like (a 1,000,000-row run then peaked
 *   about 50 MB above a 100,000-row one). Half again what survived keeps the 1,000,000-row peak
 *   at 1.09 times the 100,000-row one; with the semi-spaces above it took the 100,000-row
 *   elevation peak from 155-159 MB (doubling) to 142-148.
 * - `--expose-gc`: the run collects once when its rows are done, before it builds the HTML
 *   report (src/run/_run-report.ts), so that the report's strings reuse the memory the rows held
 *   instead of adding to the peak (7-10 MB of it).
 *
 * BENCHMARKS.md (memory, and the profile section) has the side-by-side runs.
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

const FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50', '--expose-gc'];
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
