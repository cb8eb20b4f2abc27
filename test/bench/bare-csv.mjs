/**
 * The yardstick of the nightly scenario: a bare CSV pass over the same file, csv-parse into
 * csv-stringify in one process, timed from the first byte read to the last byte written.
 *
 *   node test/bench/bare-csv.mjs <input.csv> <output.csv>   -> {"ms": ..., "rows": ...}
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';

const [input, output] = process.argv.slice(2);
let rows = 0;
const count = new Transform({
  objectMode: true,
  transform(record, _encoding, callback) {
    rows++;
    callback(null, record);
  },
});
const started = performance.now();
await pipeline(
  createReadStream(input),
  parse({ columns: true }),
  count,
  stringify({ header: true }),
  createWriteStream(output),
);
process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, rows })}\n`);
