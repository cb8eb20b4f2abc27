/**
 * The yardstick of scenario 1: the geocoding requests geobatch sends (same method, path, headers
 * and body bytes, one per row) through an undici keep-alive pool of the same size, answers read
 * and dropped. No parsing of answers, no output, no retries, no throttle.
 *
 * Plain JavaScript so that plain `node` runs it: its spawn-to-exit time then carries no
 * TypeScript loader, like the compiled geobatch it is compared with.
 *
 *   node test/bench/bare-loop.mjs <origin> <input.csv> <concurrency>
 * prints one JSON line: { requests, byStatus, loopMs }
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const [origin, input, concurrencyText] = process.argv.slice(2);
const concurrency = Number(concurrencyText);

// Bodies are built before the clock starts: the loop measures the HTTP exchange only.
const CRS84 = { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } };
const bodies = readFileSync(input, 'utf8')
  .split('\n')
  .slice(1)
  .filter((line) => line !== '')
  .map((line) => {
    const [, street, houseNo, zip, city] = line.split(',');
    return JSON.stringify({
      type: 'Feature',
      properties: {},
      geometry: { type: 'Point', coordinates: [0, 0] },
      crs: CRS84,
      searchparams: { geocodingType: 'GEOCODE', coordFormatOut: 'GEODECIMAL_POINT' },
      authentication: { channel: 'geobatch' },
      location: { street, houseNo, zip, city, country: 'DE' },
    });
  });

const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
const byStatus = {};
let next = 0;

async function worker() {
  while (next < bodies.length) {
    const i = next++;
    const res = await pool.request({
      path: '/api_rst/v2/geojson/geocode?apiKey=demo-api-key',
      method: 'POST',
      headers: { accept: 'application/json', 'x-request-id': `bare-${i}`, 'content-type': 'application/json' },
      body: bodies[i],
    });
    await res.body.text();
    byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const loopMs = performance.now() - started;
await pool.close();
process.stdout.write(`${JSON.stringify({ requests: bodies.length, byStatus, loopMs })}\n`);
