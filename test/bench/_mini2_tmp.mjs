import { readFileSync } from 'node:fs';
import { Agent as A0 } from 'undici'; import { Agent as A1 } from '../../dist/client/_undici.js'; const Agent = process.env.DEEP ? A1 : A0;
const [input, variant] = process.argv.slice(2);
const CRS84 = { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } };
const bodies = readFileSync(input, 'utf8').split('\n').slice(1).filter(Boolean).map((line) => { const [, street, houseNo, zip, city] = line.split(','); return JSON.stringify({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [0, 0] }, crs: CRS84, searchparams: { geocodingType: 'GEOCODE', coordFormatOut: 'GEODECIMAL_POINT' }, authentication: { channel: 'geobatch' }, location: { street, houseNo, zip, city, country: 'DE' } }); });
const origin = 'http://127.0.0.1:8799';
const V = new Set(variant.split(','));
const d = new Agent({ connections: 16, pipelining: 1, ...(V.has('timeouts') ? { headersTimeout: 30000, bodyTimeout: 30000 } : {}) });
const opts = (i) => ({ origin, path: '/api_rst/v2/geojson/geocode?apiKey=demo-api-key', method: 'POST', headers: { accept: 'application/json', 'x-request-id': `b-${i}`, 'content-type': 'application/json' }, body: bodies[i] });
class Collector {
  #status = 0; #headers = {}; #chunks = []; #controller;
  constructor(resolve, reject) { this.resolve = resolve; this.reject = reject; }
  onRequestStart(c) { if (V.has('ctl')) this.#controller = c; }
  onResponseStart(_c, status, headers) { this.#status = status; this.#headers = headers; this.#chunks = []; }
  onResponseData(_c, chunk) { this.#chunks.push(chunk); }
  onResponseEnd() { const text = Buffer.concat(this.#chunks).toString(); this.resolve(V.has('obj') ? { ok: true, status: this.#status, headers: this.#headers, text } : text); }
  onResponseError(_c, e) { this.reject(e); }
}
function viaDispatch(i) { return new Promise((resolve, reject) => { d.dispatch(opts(i), new Collector(resolve, reject)); }); }
async function send(i) { try { return await viaDispatch(i); } finally { } }
let next = 0, ok = 0;
async function worker() { while (next < bodies.length) { const i = next++; const r = V.has('async') ? await send(i) : await viaDispatch(i); JSON.parse(typeof r === 'string' ? r : r.text); ok++; } }
const t0 = performance.now();
await Promise.all(Array.from({ length: 16 }, worker));
console.error('ok', ok, 'ms', Math.round(performance.now() - t0));
await d.close();
