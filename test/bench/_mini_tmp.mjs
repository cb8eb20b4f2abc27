// mini.mjs INPUT MODE : MODE=request (pool.request + text) | dispatch (handler collecting chunks) | agentreq
import { readFileSync } from 'node:fs';
import { Pool, Agent } from 'undici';
const [input, mode] = process.argv.slice(2);
const CRS84 = { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } };
const bodies = readFileSync(input, 'utf8').split('\n').slice(1).filter(Boolean).map((line) => { const [, street, houseNo, zip, city] = line.split(','); return JSON.stringify({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [0, 0] }, crs: CRS84, searchparams: { geocodingType: 'GEOCODE', coordFormatOut: 'GEODECIMAL_POINT' }, authentication: { channel: 'geobatch' }, location: { street, houseNo, zip, city, country: 'DE' } }); });
const origin = 'http://127.0.0.1:8799';
const d = mode === 'agentreq' || mode === 'agentdispatch' ? new Agent({ connections: 16, pipelining: 1 }) : new Pool(origin, { connections: 16, pipelining: 1 });
const opts = (i) => ({ origin, path: '/api_rst/v2/geojson/geocode?apiKey=demo-api-key', method: 'POST', headers: { accept: 'application/json', 'x-request-id': `b-${i}`, 'content-type': 'application/json' }, body: bodies[i] });
function viaDispatch(i) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    d.dispatch(opts(i), {
      onRequestStart() {}, onResponseStart(_c, status, headers) { this.status = status; this.headers = headers; },
      onResponseData(_c, chunk) { chunks.push(chunk); }, onResponseEnd() { resolve(Buffer.concat(chunks).toString()); }, onResponseError(_c, e) { reject(e); },
    });
  });
}
let next = 0, ok = 0;
async function worker() { while (next < bodies.length) { const i = next++; let t; if (mode.endsWith('dispatch')) t = await viaDispatch(i); else { const r = await d.request(opts(i)); t = await r.body.text(); } JSON.parse(t); ok++; } }
const t0 = performance.now();
await Promise.all(Array.from({ length: 16 }, worker));
console.error('ok', ok, 'ms', Math.round(performance.now() - t0));
await d.close();
