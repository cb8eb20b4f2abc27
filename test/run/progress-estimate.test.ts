import { describe, expect, it } from 'vitest';
import { openSource } from '../../src/input/_source.js';
import { readCsv } from '../../src/input/csv.js';
import { unread } from '../../src/input/reader.js';
import { seededRandom } from '../../src/input/sample.js';
import { rates } from '../../src/run/progress.js';
import { tempFile } from '../input/_read.js';

const ROWS = 8000;
/** Rows in flight between the reader and the output, as the engine holds them. */
const IN_FLIGHT = 40;

/** A CSV of a few hundred kilobytes whose rows differ in length, and some accented letters. */
function generatedCsv(): string {
  const random = seededRandom('progress');
  const lines = ['id,street,city,note'];
  for (let i = 0; i < ROWS; i++) {
    const note = 'x'.repeat(Math.floor(random() * 40));
    lines.push(`${i},Hauptstraße ${Math.floor(random() * 200)},Köln,${note}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('the row total estimated while a real CSV input is read', () => {
  it('is within a few percent from the first batch on, though the whole file was read at once', async () => {
    const path = tempFile(generatedCsv(), 'input.csv');
    const source = await openSource(path);
    // As the reader's look-ahead does with an input under a mebibyte: every byte read up front.
    const head: Buffer[] = [];
    for await (const chunk of source.chunks) head.push(chunk);
    const position = unread();
    const state = { columns: [] as readonly string[], blankLines: 0, headerLines: 0, lines: 0, position };
    const settings = { delimiter: ',', maxRecordBytes: 1 << 20, maxRecordLines: 100, onWarning: () => {} };
    const start = {
      rowsDone: 0,
      rowsRead: 0,
      rowsFailed: 0,
      requests: 0,
      bytesRead: 0,
      bytesTotal: source.size,
    };
    const estimates: number[] = [];
    let rowsRead = 0;
    for await (const batch of readCsv(
      pieces(Buffer.concat(head)),
      { encoding: 'utf-8', bom: 0 },
      settings,
      state,
    )) {
      // The engine takes half a batch in before it looks at the total.
      rowsRead += batch.length / 2;
      const now = {
        ...start,
        rowsRead,
        rowsDone: Math.max(0, rowsRead - IN_FLIGHT),
        bytesRead: source.bytesRead(),
        position: { ...position },
      };
      expect(now.bytesRead).toBe(source.size);
      estimates.push(rates(now, start, 1000).estimatedTotalRows ?? Number.NaN);
      rowsRead += batch.length / 2;
    }
    expect(estimates.length).toBeGreaterThan(100);
    for (const estimate of estimates.slice(0, -1)) expect(Math.abs(estimate / ROWS - 1)).toBeLessThan(0.03);
    expect(position).toMatchObject({ records: ROWS, ended: true });
    const done = {
      ...start,
      rowsRead: ROWS,
      rowsDone: ROWS - IN_FLIGHT,
      bytesRead: source.bytesRead(),
      position,
    };
    expect(rates(done, start, 1000).estimatedTotalRows).toBe(ROWS);
  });
});

/** The look-ahead handed on in 64 KiB pieces, as the reader does. */
async function* pieces(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += 65536) yield bytes.subarray(at, at + 65536);
}
