/**
 * Where a run's time or memory goes, per stage of a row's life: reads a V8 CPU profile
 * (`node --cpu-prof`) or sampling heap profile (.heapprofile) of `geobatch run` and charges every
 * sample to the stage of its nearest frame that belongs to one (a sample in zod called from the
 * geocoding answer's check is "parse and check answer"; one in the socket write under undici is
 * "HTTP"). The tables of BENCHMARKS.md's profile section come from here.
 *
 *   node test/bench/profile-stages.mjs run.cpuprofile [more.cpuprofile...]
 *   node test/bench/profile-stages.mjs run.heapprofile
 *
 * Prints one markdown table: per stage, its share (CPU: of all samples, idle included; heap: of
 * all sampled bytes) and, for CPU, milliseconds.
 */
import { readFileSync } from 'node:fs';

/** In order: the first rule a frame meets names its stage. */
const RULES = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
  ['read (input, CSV parsing)', (f) => f.url.includes('/dist/input/')],
  ['plan (row to request item, dedup key)', (f) => /\/dist\/jobs\//.test(f.url) && /plan|key|readPoint|Key$/i.test(f.functionName)],
  ['build request', (f) => /\/dist\/client\/(geocoding|elevation|coords)\.js/.test(f.url) && /^send|^elevation|^geocode|^build/.test(f.functionName)],
  ['parse and check answer', (f) => /\/zod\//.test(f.url) || /\/dist\/client\/_parse\.js/.test(f.url) || /read\w*Response|parseJson|#read|#parse|readLonLat|readMatch/.test(f.functionName)],
  ['HTTP (undici, sockets)', (f) => /\/undici\//.test(f.url) || /^(writev|writeBuffer|writeUtf8String)$/.test(f.functionName) || /node:(net|internal\/stream_base_commons|_http)/.test(f.url)],
  ['client (retry, throttle, deadlines, hedging)', (f) => f.url.includes('/dist/client/')],
  ['render (answer to output columns)', (f) => f.url.includes('/dist/jobs/') || f.url.includes('/dist/engine/_render.js')],
  ['settle (engine: window, dedup, batches)', (f) => f.url.includes('/dist/engine/')],
  ['write (output files)', (f) => f.url.includes('/dist/output/')],
  ['run report and summary', (f) => /\/dist\/report\/|\/dist\/run\/_run-report|simplify|\/turf\//.test(f.url)],
  ['session, checkpoint', (f) => f.url.includes('/dist/run/')],
  ['start-up (module loading)', (f) => /node:internal\/modules|compileSourceTextModule|wrapSafe/.test(`${f.url} ${f.functionName}`)],
];

function stageOf(stack) {
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i];
    for (const [name, test] of RULES) if (test(frame)) return name;
  }
  return 'other (Node internals, microtasks)';
}

function fromCpuProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const counts = new Map();
  for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
  const totals = new Map();
  for (const [id, n] of counts) {
    const stack = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) stack.unshift(byId.get(cur).callFrame);
    const stage = stageOf(stack);
    totals.set(stage, (totals.get(stage) ?? 0) + n * msPerSample);
  }
  return totals;
}

function fromHeapProfile(profile) {
  const totals = new Map();
  const walk = (node, stack) => {
    const here = [...stack, node.callFrame];
    if (node.selfSize > 0) {
      const stage = stageOf(here);
      totals.set(stage, (totals.get(stage) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here.length > 60 ? here.slice(-60) : here);
  };
  walk(profile.head, []);
  return totals;
}

const files = process.argv.slice(2);
const sum = new Map();
let heap = false;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  heap = profile.head !== undefined;
  const totals = heap ? fromHeapProfile(profile) : fromCpuProfile(profile);
  for (const [stage, v] of totals) sum.set(stage, (sum.get(stage) ?? 0) + v / files.length);
}
const all = [...sum.values()].reduce((a, b) => a + b, 0);
const rows = [...sum].sort((a, b) => b[1] - a[1]);
process.stdout.write(heap ? '| stage | MB | share |\n|---|---|---|\n' : '| stage | ms | share |\n|---|---|---|\n');
for (const [stage, v] of rows) {
  const value = heap ? (v / 1048576).toFixed(1) : v.toFixed(0);
  process.stdout.write(`| ${stage} | ${value} | ${((100 * v) / all).toFixed(1)}% |\n`);
}
process.stdout.write(`| all | ${heap ? (all / 1048576).toFixed(1) : all.toFixed(0)} | 100% |\n`);
