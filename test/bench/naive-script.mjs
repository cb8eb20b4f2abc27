/**
 * Scenario 4's "obvious alternative": the script a user writes in ten minutes. Read the file,
 * p-map over the rows with a fixed concurrency, one fetch per row (per row and level for
 * boundaries), write the rows back with the answer. No batching, no dedup, no index, no retry.
 *
 * Plain JavaScript run by plain `node`, as such a script would be.
 *
 *   node test/bench/naive-script.mjs <kind> <origin> <input> <output> <concurrency>
 *   kind: elevation | boundaries | customer-lookup
 * prints one JSON line: { rows, requests, byStatus, elapsedMs }
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import pMap from 'p-map';

const [kind, origin, input, output, concurrencyText] = process.argv.slice(2);
const API_KEY = 'demo-api-key';
const BASIC = `Basic ${Buffer.from('demo-partner:demo-partner-key').toString('base64')}`;
const started = performance.now();

async function readRows(file) {
  const text = await readFile(file, 'utf8');
  if (!file.endsWith('.geojson')) return parse(text, { columns: true, bom: true });
  return JSON.parse(text).features.map((f) => ({
    ...f.properties,
    lon: f.geometry?.coordinates?.[0],
    lat: f.geometry?.coordinates?.[1],
  }));
}

let requests = 0;
const byStatus = {};
async function getJson(path, headers = {}) {
  requests++;
  const res = await fetch(`${origin}${path}`, { headers: { accept: 'application/json', ...headers } });
  byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
  const text = await res.text();
  return res.ok ? JSON.parse(text) : { error: res.status };
}

const lookups = {
  async elevation(row) {
    const q = `latitude=${row.lat}&longitude=${row.lon}&apiKey=${API_KEY}`;
    const answer = await getJson(`/api/v2/Elevation/point?${q}`);
    return { elevation: answer.points?.[0]?.elevation ?? '' };
  },
  async boundaries(row) {
    const out = {};
    for (const level of [4, 6]) {
      const q = `level=${level}&latitude=${row.lat}&longitude=${row.lon}&apiKey=${API_KEY}`;
      const answer = await getJson(`/api/v2/Boundaries/point?${q}`);
      const first = answer.features?.[0]?.properties ?? {};
      out[`level${level}_name`] = first.name ?? '';
      out[`level${level}_key`] = first.key ?? '';
    }
    return out;
  },
  async 'customer-lookup'(row) {
    const q = `CustomerIds=${encodeURIComponent(row.supplier_key)}`;
    const answer = await getJson(`/addresssearch/v2/ByCustomerId?${q}`, { authorization: BASIC });
    const address = answer.AddressItems?.[0]?.BasicData?.Address ?? {};
    return { company: address.CompanyName ?? '', zip: address.Zip ?? '', city: address.City ?? '' };
  },
};

const rows = await readRows(input);
const lookup = lookups[kind];
const results = await pMap(
  rows,
  async (row) => {
    const usable = kind === 'customer-lookup' ? row.supplier_key : row.lon !== undefined && row.lon !== '';
    return { ...row, ...(usable ? await lookup(row) : {}) };
  },
  { concurrency: Number(concurrencyText) },
);
await writeFile(output, stringify(results, { header: true }));
const elapsedMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ rows: rows.length, requests, byStatus, elapsedMs })}\n`);
