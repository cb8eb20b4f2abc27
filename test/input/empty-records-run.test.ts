/**
 * A run over a CSV as Excel leaves it, records with no data (`;;;;`) between and after the rows and
 * a Ctrl-Z at its end: they take no row number, so a run stopped and resumed across them writes
 * what an uninterrupted run writes, each row and report line at the line it has in the file.
 */
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { journalPath, readJournal } from '../../src/run/checkpoint.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { fakeJob } from '../engine/_fake.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';

const ROWS = 300;
/** The row that has a cell too many: a failure with data, reported at its own line. */
const BAD = 200;

/** The input, and the physical line of each row. */
function excelInput(): { text: string; lines: Map<number, number> } {
  const records = ['id;city;;'];
  const lines = new Map<number, number>();
  for (let i = 0; i < ROWS; i++) {
    lines.set(i, records.length + 1);
    records.push(i === BAD ? `${i};City ${i};;;x` : `${i};City ${i};;`);
    if (i % 7 === 3) records.push(';;;;', i % 2 === 0 ? '"";"";"";""' : ' ;;;');
  }
  records.push(';;;;', ';;;;');
  return { text: `${records.join('\r\n')}\r\n\x1a`, lines };
}

function spec(dir: string, extra: Partial<RunSpec> = {}) {
  const fake = fakeJob({ keys: (row) => [`k${row.fields.id}`], delay: () => 1 });
  const full: RunSpec = {
    job: fake,
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.csv'), format: 'csv' },
    output: { path: join(dir, 'out.csv'), format: 'csv' },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger: memoryLogger().logger,
    progress: { enabled: false },
    checkpoint: { intervalMs: 10 },
    engine: { window: 32, concurrency: 4 },
    ...extra,
  };
  return { spec: full, fake };
}

describe('a run over records with no data and a Ctrl-Z end', () => {
  it('numbers the rows alike when resumed across them, each row at its line', async () => {
    const { text, lines } = excelInput();
    const [dir, reference] = [tempDir(), tempDir()];
    for (const at of [dir, reference]) write(join(at, 'in.csv'), text);

    // Stopped once the job has been asked for 120 rows, as Ctrl-C stops it.
    const controller = new AbortController();
    const stopping = fakeJob({
      keys: (row) => [`k${row.fields.id}`],
      delay: () => 1,
      onExecute: () => {
        if (stopping.executedRows.size >= 120) controller.abort();
      },
    });
    const first = spec(dir, { signal: controller.signal, job: stopping });
    const stopped = await runJob(first.spec);
    expect(stopped).toMatchObject({ ended: 'stopped', error: { code: 'ABORTED' } });
    const journal = await readJournal(journalPath(first.spec.output.path));
    expect(journal?.committedRows).toBeGreaterThan(0);
    expect(journal?.committedRows).toBeLessThan(BAD);

    const resumed = spec(dir, { resume: true });
    const summary = await runJob(resumed.spec);
    expect(summary).toMatchObject({
      ended: 'complete_with_failures',
      exitCode: 3,
      rows: { read: ROWS, written: ROWS, ok: ROWS - 1, failed: 1 },
      resume: { resumed: true, fromRow: journal?.committedRows },
    });
    // The resume asked for no committed row, and for each row after them with its own id.
    expect(Math.min(...resumed.fake.executedRows)).toBe(journal?.committedRows);

    const whole = await runJob(spec(reference).spec);
    expect(whole).toMatchObject({ ended: 'complete_with_failures', rows: { written: ROWS, failed: 1 } });
    expect(read(join(dir, 'out.csv'))).toBe(read(join(reference, 'out.csv')));
    expect(read(join(dir, 'errors.csv'))).toBe(read(join(reference, 'errors.csv')));

    const output = parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[];
    expect(output.map((r) => r.id)).toEqual(Array.from({ length: ROWS }, (_, i) => String(i)));
    expect(output.filter((r) => r.geobatch_status === 'ok').every((r) => r.value === `v:k${r.id}`)).toBe(
      true,
    );
    const report = parse(read(join(dir, 'errors.csv')), { columns: true }) as Record<string, string>[];
    expect(report.map((r) => [r.geobatch_row, r.geobatch_line, r.geobatch_error])).toEqual([
      [String(BAD + 1), String(lines.get(BAD)), 'INPUT_MALFORMED'],
    ]);
  });
});
