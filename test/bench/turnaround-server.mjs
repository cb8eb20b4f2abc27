/**
 * A diagnostic, not a scenario (BENCHMARKS.md, the ninth round of the profile section): a minimal
 * HTTP server that answers every request after a fixed delay with one canned body, and measures
 * per kept-alive socket the turnaround of the client under test: from an answer's last byte
 * written to the next request's arrival on the same socket. Point the bare loop
 * (test/bench/bare-loop.mjs) or geobatch (GEOBATCH_EMULATOR_URL) at it, then send it SIGUSR2: it
 * writes { answers, gaps } (gaps in ms) to <out.json> and starts counting afresh. Plain
 * JavaScript, so that plain `node` runs it; loopback only.
 *
 *   node test/bench/turnaround-server.mjs <port> <delay-ms> <canned-body.json> <out.json>
 *
 * A canned body is one answer of the emulator to the requests the client will send (a geocoding
 * FeatureCollection for the geocode job), so that the client does all its usual work on it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';

const [port, delay, canned, out] = process.argv.slice(2);
const body = readFileSync(canned);
const finished = new WeakMap();
let gaps = [];
let answers = 0;

const server = http.createServer((req, res) => {
  const last = finished.get(req.socket);
  if (last !== undefined) gaps.push(performance.now() - last);
  req.resume();
  req.on('end', () => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body, () => finished.set(req.socket, performance.now()));
      answers++;
    }, Number(delay));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${port}\n`));
process.on('SIGUSR2', () => {
  writeFileSync(out, JSON.stringify({ answers, gaps }));
  gaps = [];
  answers = 0;
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
