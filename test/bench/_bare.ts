/** The bare loop (bare-loop.mjs) run in its own process, as the yardstick of scenarios 1 and 2. */
import { expectExit, runNode } from './_process.js';
import type { BenchContext } from './_types.js';

export interface BareRun {
  readonly wallMs: number;
  readonly loopMs: number;
  readonly requests: number;
  readonly byStatus: Record<string, number>;
}

/** The bare loop in its own process; its clock runs from its first request to its last answer. */
export async function bareLoop(ctx: BenchContext, input: string, concurrency: number): Promise<BareRun> {
  const args = ['test/bench/bare-loop.mjs', ctx.emulator.origin, input, String(concurrency)];
  const run = await runNode({ args });
  expectExit(run, [0], 'bare loop');
  const result = JSON.parse(run.stdout) as Omit<BareRun, 'wallMs'>;
  return { ...result, wallMs: run.wallMs };
}
