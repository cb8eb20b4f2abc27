/**
 * Generated inputs: deterministic (seeded), written under a temp dir, built from the samples so
 * that every row is one the emulator can answer. Generated CSV holds no quotes or commas inside
 * fields, so the bare loop and the naive script may read it as plainly as a user would.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'yaml';
import { ROOT } from './_process.js';

/** mulberry32: small, fast, and the same numbers on every machine. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function sample(name: string): Promise<Record<string, string>[]> {
  return parse(await readFile(path.join(ROOT, 'samples', name)), { columns: true, bom: true });
}

const PLAIN = /^[^,"\r\n]*$/;

/** Writes lines through a stream, honouring backpressure (1M rows must not sit in one string). */
async function writeLines(file: string, header: string, count: number, line: (i: number) => string) {
  const out = createWriteStream(file);
  let chunk = `${header}\n`;
  for (let i = 0; i < count; i++) {
    chunk += `${line(i)}\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/**
 * `count` addresses, all distinct (the house number is the row number), so that dedup saves
 * nothing and geobatch sends one request per row, exactly as the bare loop does.
 */
export async function writeGeocodeInput(file: string, count: number): Promise<void> {
  const good = (await sample('community-centres.csv')).filter(
    (r) =>
      /^\d{5}$/.test(r.plz ?? '') &&
      r.plz !== '99999' &&
      (r.city ?? '') !== '' &&
      PLAIN.test(r.street ?? '') &&
      PLAIN.test(r.city ?? ''),
  );
  await writeLines(file, 'id,street,housenumber,plz,city', count, (i) => {
    const r = good[i % good.length] as Record<string, string>;
    return `${i + 1},${r.street},${i + 1},${r.plz},${r.city}`;
  });
}

/** `count` points near real German places (jittered by up to ~2 km), practically all distinct. */
export async function writePointInput(file: string, count: number, seed = 1): Promise<void> {
  const places = (await sample('places.csv'))
    .map((r) => [Number(r.lon), Number(r.lat)] as const)
    .filter(([lon, lat]) => lon > 5.8 && lon < 15.1 && lat > 47.2 && lat < 55.1);
  const next = random(seed);
  await writeLines(file, 'id,lat,lon', count, (i) => {
    const [lon, lat] = places[Math.floor(next() * places.length)] as readonly [number, number];
    const jitter = () => (next() - 0.5) * 0.04;
    return `${i + 1},${(lat + jitter()).toFixed(5)},${(lon + jitter()).toFixed(5)}`;
  });
}

/** `count` supplier keys drawn with replacement from `keys`: repeats, as real customer lists have. */
export async function writeCustomerInput(file: string, count: number, keys: readonly string[], seed = 2) {
  const next = random(seed);
  await writeLines(file, 'customer_no,supplier_key', count, (i) => {
    return `C${i + 1},${keys[Math.floor(next() * keys.length)]}`;
  });
}

/** Every supplier key the emulator's address search knows, read page by page as the samples were. */
export async function supplierKeys(origin: string, basicHeader: string): Promise<string[]> {
  const keys = new Set<string>();
  for (let page = 1; ; page++) {
    const query = `Branches=100&Lux=5.8&Luy=55.1&Rlx=15.1&Rly=47.2&Top=100&OrderBy=NONE&Page=${page}`;
    const res = await fetch(`${origin}/addresssearch/v2/ByBranchesAndRectangle?${query}`, {
      headers: { authorization: basicHeader },
    });
    const answer = (await res.json()) as {
      AddressItems: { BasicData: { Identifiers: { ProviderForeignKey: string } } }[];
      Paging: { MaxPage: number };
    };
    for (const item of answer.AddressItems) keys.add(item.BasicData.Identifiers.ProviderForeignKey);
    if (page >= answer.Paging.MaxPage || page >= 200) break;
  }
  return [...keys].sort();
}

/** A job file in `dir`; paths inside it are absolute, so it runs from any directory. */
export async function writeJob(dir: string, name: string, document: Record<string, unknown>) {
  const file = path.join(dir, `${name}.yaml`);
  await writeFile(file, stringify(document));
  return file;
}
