/** `geobatch status <job>`'s lines for states the CLI tests do not reach cheaply (_local-status.ts). */
import { describe, expect, it } from 'vitest';
import { localStatusText } from '../../src/cli/_local-status.js';
import type { LocalStatus } from '../../src/run/local-status.js';
import { sampleSummary } from '../report/_sample.js';

const finished = (truncated: boolean): LocalStatus => ({
  state: 'finished',
  output: '/data/out.csv',
  outputThere: true,
  runReportThere: true,
  lock: null,
  progress: null,
  resume: null,
  stop: null,
  summary: sampleSummary((s) => {
    s.input = { ...s.input, truncated };
    s.exitCode = truncated ? 4 : 3;
  }),
  summaryPath: '/data/out.csv.summary.json',
  partial: null,
});

describe('geobatch status <job>: a finished run', () => {
  it('says an input cut short in its first line, as the run’s closing line does', () => {
    const [cut] = localStatusText('job.yaml', undefined, finished(true)).split('\n');
    expect(cut).toMatch(
      /^job\.yaml: finished: .* \(exit 4\), ended .*; its input was cut short, the rows after the cut not read$/,
    );
    const [whole] = localStatusText('job.yaml', undefined, finished(false)).split('\n');
    expect(whole).not.toContain('cut short');
  });
});
