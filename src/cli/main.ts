#!/usr/bin/env node
/**
 * The entry point: starts the command line (program.ts) on a V8 heap sized for a streaming tool.
 *
 * A run holds a few tens of megabytes alive (the modules, the reorder window, the dedup cache);
 * what V8 keeps resident around that is set by sizes that can only be given when V8 starts, so
 * this process replaces itself once, before anything else is loaded, with the same arguments plus
 * the flags (same pid, same standard streams and signals). Where a flag is set already
 * (NODE_OPTIONS, the command line) it is kept; where the runtime cannot replace itself, it goes
 * on as is. GEOBATCH_HEAP chooses: unset (or `small`), the standard heap; `large`, fewer
 * collections for more memory; `default`, Node's own sizes and no restart.
 *
 * The standard heap:
 * - `--max-semi-space-size=8`: Node 24 lets the young generation grow to 2 x 64 MB; with 2 x 8 MB
 *   the peak of 100,000 elevation rows fell from 234 MB (Node's own sizes) to 198 MB.
 * - `--heap-growing-percent=50`: V8 lets the old generation grow to up to four times what
 *   survived its last full collection when collecting looks expensive next to the program's own
 *   work, which a long run over a big file always looks like (a 1,000,000-row run then peaked
 *   about 50 MB above a 100,000-row one). Growing by half at most keeps the two close and the
 *   peak of 100,000 elevation rows (report on) at 131-137 MB, against 158-168 MB with the large
 *   heap (6 runs each, alternated).
 * - `--expose-gc`: the run collects once when its rows are done, before it builds the HTML report
 *   (src/run/_run-report.ts), so that the report's strings reuse the memory the rows held.
 *
 * What the standard heap costs depends on how much a run promotes to the old generation, which
 * it collects more often. It used to cost a run answered entirely from the request cache 15-35%
 * (the nightly benchmark: 0.41-0.48 of a bare CSV pass against 0.68), and it was the large heap
 * that was standard; that cost came from the engine's Map of items in flight, which had nearly
 * every row promoted after a full collection (src/engine/_string-table.ts). Without it the same
 * cached run takes 2.41 s of CPU against 2.31 s with the large heap, and 20,000 uncached geocoded
 * rows 3.03 s against 2.93 s (medians, alternated); the nightly benchmark read 0.50-0.58 over
 * three runs. Elevation's rows, which wait in batches of 500, went about 9% slower (72,727
 * against 79,491 rows/s in one benchmark run).
 * The large heap, `--max-semi-space-size=16` and `--heap-growing-percent=100`, is for a
 * machine with memory to spare and a run that promotes much (batches of long-lived rows).
 *
 * The same step caps glibc's malloc arenas at 2 (MALLOC_ARENA_MAX, read only when a process
 * starts; a value the user set is kept): by default each of Node's threads that allocates gets
 * an arena of its own, up to 8 per core, each keeping its own high-water mark. The cap took about
 * 9 MB off the peak of 100,000 elevation rows (200 -> 191 MB, medians of 6, alternated) at the
 * same CPU time. It also fixes glibc's mmap threshold at its starting value, 128 KiB
 * (MALLOC_MMAP_THRESHOLD_; again a value of the user's is kept, and so is any malloc setting in
 * GLIBC_TUNABLES). Left to itself, glibc raises the threshold each time a block above it is freed,
 * up to 32 MiB, and from then on serves such blocks (V8's compiler zones, large buffers) from the
 * arenas, where what is freed stays resident around what is still in use. Fixed, the peak of
 * 100,000 elevation rows fell by about 8 MB and that of 1,000,000 by about 17 MB (BENCHMARKS.md,
 * profile, thirteenth round), at no CPU time that could be told from noise. Other C libraries
 * ignore both variables.
 */
import { EXIT_STATUS } from '../errors.js';
import { quietOnBrokenPipe } from './_broken-pipe.js';
import { listenEarly } from './_early-signals.js';
import { runtimeProblem } from './_runtime.js';

const tooOld = runtimeProblem(process.versions.node);
if (tooOld !== undefined) {
  process.stderr.write(tooOld);
  process.exit(EXIT_STATUS.usage);
}

const STANDARD = ['--max-semi-space-size=8', '--heap-growing-percent=50', '--expose-gc'];
const HEAPS: Readonly<Record<string, readonly string[]>> = {
  standard: STANDARD,
  // The name of the standard heap while it was a choice; scripts that set it keep working.
  small: STANDARD,
  large: ['--max-semi-space-size=16', '--heap-growing-percent=100', '--expose-gc'],
  default: [],
};
const heap = process.env.GEOBATCH_HEAP || 'standard';
const FLAGS = Object.hasOwn(HEAPS, heap) ? HEAPS[heap] : undefined;
if (FLAGS === undefined) {
  process.stderr.write(
    `geobatch: GEOBATCH_HEAP is ${JSON.stringify(heap)}; expected large (fewer collections, more memory), default (Node's own heap sizes) or nothing (the standard heap; small is the same)\n`,
  );
  process.exit(EXIT_STATUS.usage);
}
// NO_COLOR wins whatever else is set (no-color.org; src/log.ts, colourWanted). With FORCE_COLOR set
// too, Node itself printed on every command that it ignores NO_COLOR, which geobatch does not.
if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') delete process.env.FORCE_COLOR;
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
/** A flag of ours the user (or our own earlier start) has not set, in any value. */
const missing = FLAGS.filter((flag) => !given.some((arg) => arg.startsWith(flag.split('=')[0] as string)));
if (missing.length > 0 && typeof process.execve === 'function') {
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
      { ...process.env, ...mallocSettings(process.env) },
    );
  } catch {
    // Not permitted here (a sandbox, a read-only binary): the default heap does the job too.
  }
}
/** glibc's malloc, as the restart sets it: the user's own settings kept (the comment at the top). */
function mallocSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  const settings: Record<string, string> = { MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2' };
  if (env.MALLOC_MMAP_THRESHOLD_ === undefined && !/\bglibc\.malloc\./.test(env.GLIBC_TUNABLES ?? ''))
    settings.MALLOC_MMAP_THRESHOLD_ = '131072';
  return settings;
}

// After the restart above (execve keeps no listener), before the modules load.
listenEarly();
quietOnBrokenPipe();
await import('./program.js');
