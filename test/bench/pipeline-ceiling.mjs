/**
 * A reference for the nightly scenario: geobatch's own pipeline (read the CSV, plan, render the
 * geocode columns, write the CSV) with every answer already in memory: the geocode job of the
 * bench answered locally with one fixed match, no request, no cache. What a cached run could reach
 * if its lookups cost nothing. Uses the build (dist/), as `npm run bench` builds first.
 *
 *   node test/bench/pipeline-ceiling.mjs <input.csv> <output.csv>   -> {"ms": ..., "rows": ...}
 */
import { pino } from 'pino';
import { createGeocodeJob } from '../../dist/jobs/geocode.js';
import { runJob } from '../../dist/run/run.js';

const [input, output] = process.argv.slice(2);
const answer = {
  match: {
    lon: 13.38886,
    lat: 52.51704,
    street: 'Unter den Linden',
    houseNo: '77',
    zip: '10117',
    city: 'Berlin',
    district: 'Mitte',
    isoCountry: 'DE',
    description: 'Unter den Linden 77, 10117 Berlin',
    matchLevel: 'HOUSE',
  },
  candidates: 1,
};
const mapping = {
  street: { column: 'street' },
  houseNo: { column: 'housenumber' },
  zip: { column: 'plz' },
  city: { column: 'city' },
  country: { value: 'DE' },
};
const job = {
  ...createGeocodeJob({ geocode: () => Promise.reject(new Error('no requests here')) }, { mapping }),
  resolveLocally: () => answer,
};
const summary = await runJob({
  job,
  jobFingerprint: 'ceiling',
  input: { path: input, format: 'csv' },
  output: { path: output, format: 'csv' },
  report: null,
  summaryPath: null,
  logger: pino({ level: 'silent' }),
  progress: { enabled: false },
});
process.stdout.write(`${JSON.stringify({ ms: summary.timing.durationMs, rows: summary.rows.written })}\n`);
