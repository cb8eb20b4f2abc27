import type { Datasets } from '../datasets/index.js';
import type { PostalRow } from '../datasets/postal.js';
import { PointIndex } from '../lib/_point-index.js';
import { fold, germanCollator } from '../lib/_text.js';
import { branchMask, classify } from './branches.js';
import { duplicateOf } from './duplicates.js';
import type { Identifiers } from './identifiers.js';
import { assignNumbers, identifiersFor } from './identifiers.js';
import { itemOf } from './item.js';

export interface AddressRecord {
  /** Position among the organisation rows: the NONE order. */
  seq: number;
  row: PostalRow;
  city: string;
  /** The record's category codes as bits (see branchMask). */
  branches: number;
  ids: Identifiers;
  /** Rank in German name order, for cheap sorting. */
  nameRank: number;
  foldedName: string;
  /** The item's JSON split where BasicData.Geo.Distance goes. */
  json: readonly [string, string];
}

export interface AddressIndex {
  records: readonly AddressRecord[];
  points: PointIndex;
  byKey: ReadonlyMap<string, readonly AddressRecord[]>;
  byYmid: ReadonlyMap<string, AddressRecord>;
}

const DISTANCE_MARK = '\u0000distance\u0000';

export function buildAddressIndex(data: Datasets): AddressIndex {
  const rows = data.postal.organisations;
  const contentKeys = contentKeysOf(rows);
  const numbers = assignNumbers(contentKeys);
  const drafts = rows.map((row, seq) => {
    const decoded = numbers.get(contentKeys[seq] as string) as number;
    const folded = fold(row.name);
    const ids = identifiersFor(decoded);
    const twin = duplicateOf(ids.ProviderForeignKey);
    if (twin) ids.ProviderForeignKey = twin;
    return { seq, row, ids, folded, city: cityOf(data, row), branches: classify(folded) };
  });
  const order = drafts
    .map((d) => d.seq)
    .sort((a, b) => compareNames(drafts[a]?.row, drafts[b]?.row) || a - b);
  const ranks = new Map(order.map((seq, rank) => [seq, rank]));
  const records = drafts.map(
    (d): AddressRecord => ({
      seq: d.seq,
      row: d.row,
      city: d.city,
      branches: branchMask(d.branches.map((b) => b.code)),
      ids: d.ids,
      nameRank: ranks.get(d.seq) ?? d.seq,
      foldedName: d.folded,
      json: splitAtDistance(
        JSON.stringify(itemOf(d.row, d.folded, d.city, d.ids, d.branches, DISTANCE_MARK)),
      ),
    }),
  );
  const byKey = new Map<string, AddressRecord[]>();
  for (const r of records)
    byKey.set(r.ids.ProviderForeignKey, [...(byKey.get(r.ids.ProviderForeignKey) ?? []), r]);
  return {
    records,
    points: new PointIndex(rows),
    byKey,
    byYmid: new Map(records.map((r) => [r.ids.YMID, r])),
  };
}

/** Same content twice in the file gets an occurrence suffix, so every row has its own key. */
function contentKeysOf(rows: readonly PostalRow[]): string[] {
  const seen = new Map<string, number>();
  return rows.map((r) => {
    const base = `${r.zip}|${r.name}|${r.lat}|${r.lon}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n === 0 ? base : `${base}|${n}`;
  });
}

function compareNames(a: PostalRow | undefined, b: PostalRow | undefined): number {
  return germanCollator.compare(a?.name ?? '', b?.name ?? '');
}

/** The place of the record's own zip when there is one, else the nearest place. */
function cityOf(data: Datasets, row: PostalRow): string {
  const same = data.postal.placesByZip.get(row.zip)?.[0];
  if (same) return same.name;
  const near = data.postal.placeIndex.nearest(row.lon, row.lat, 1)[0];
  return (near && data.postal.places[near.index]?.name) || row.district;
}

/** The item JSON with Distance filled in. */
export function itemJson(record: AddressRecord, distance: string): string {
  return `${record.json[0]}${JSON.stringify(distance)}${record.json[1]}`;
}

function splitAtDistance(text: string): [string, string] {
  const mark = JSON.stringify(DISTANCE_MARK);
  const at = text.indexOf(mark);
  return [text.slice(0, at), text.slice(at + mark.length)];
}
