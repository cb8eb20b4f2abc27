/**
 * The address search records: the organisation rows of the postal data (real company and authority
 * names with their large-customer zips), with identifiers, categories and synthetic contact data.
 */
import type { AddressItem } from '../../client/wire.js';
import type { Datasets } from '../datasets/index.js';
import type { PostalRow } from '../datasets/postal.js';
import { PointIndex } from '../lib/_point-index.js';
import { fold, germanCollator } from '../lib/_text.js';
import type { Branch } from './branches.js';
import { branchMask, classify } from './branches.js';
import { duplicateOf } from './duplicates.js';
import type { Identifiers } from './identifiers.js';
import { assignNumbers, identifiersFor } from './identifiers.js';

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
      json: splitAtDistance(JSON.stringify(item(d.row, d.folded, d.city, d.ids, d.branches))),
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

function item(
  row: PostalRow,
  folded: string,
  city: string,
  ids: Identifiers,
  branches: Branch[],
): AddressItem {
  const decoded = Number(ids.YMIDDecoded);
  const changed = dateOf(decoded);
  return {
    BasicData: {
      Identifiers: ids,
      Address: {
        CompanyName: row.name,
        CompanyNameAddon1: null,
        CompanyNameAddon2: null,
        CompanyNameAddon3: null,
        FirstName: null,
        Country: 'D',
        Zip: row.zip,
        City: city,
        CityPart: '',
        Street: '',
        HouseNo: null,
        Postbox: null,
      },
      Contact: contactOf(folded, decoded),
      Geo: {
        XCoord: String(row.lon),
        YCoord: String(row.lat),
        GeocodeStatus: 'ZIP',
        Distance: DISTANCE_MARK,
        MatrixRouteDistance: '',
        MatrixRouteTime: '',
        DistanceToRoute: null,
      },
      BranchListElements: branches.map((b, i) => ({
        BranchCode: b.code,
        BranchText: b.text,
        Keywords: null,
        SortNr: i + 1,
        Kategorie: i === 0 ? 0 : 1,
        BranchCodePredecessor: null,
        NoOfBranchCodeChilds: 0,
        Frequency: null,
        MarketPlace: null,
        MarketNumber: null,
        Country: 'D',
        Language: 'de',
      })),
      Marketing: {
        DisplayType: '0',
        TypeEnumValue: 'BASIC',
        TypeValueVisible: 'Basiseintrag',
        IsCharged: false,
      },
      BusinessData: {
        BusinessID: Buffer.from(`B${decoded}`).toString('base64'),
        BusinessIDDecoded: String(decoded),
        AddressID: null,
        IsCompany: true,
        HandelsregisterType: null,
        HandelsregisterNr: null,
        UStIdNr: null,
        DateLastChange: changed,
        DateLastCheck: changed,
      },
      AdditionalInfo: {
        Rating: '0',
        RatingCount: '0',
        RatingCategories: [],
        Turnover: '',
        CompanySize: '',
        BusinessImage: null,
        BusinessNews: '',
        CompanyInfo: '',
      },
      MemoItems: [],
      Images: [],
      ObjectListItems: [],
      ReleaseManagement: null,
      Copyright: null,
    },
    Comments: [],
    AdditionalContacts: [],
    HotelReservationData: null,
    ImmoData: [],
    History: { IsHistorical: false, ChangeDate: changed, ChangeType: 'NONE', ReasonType: 'NONE' },
    Similarity: null,
  };
}

/** Synthetic (documented as such): derived from the name so that they are stable and plainly fake. */
function contactOf(folded: string, decoded: number) {
  const slug = folded.replace(/ /g, '-').slice(0, 40) || 'firma';
  const number = String(decoded).slice(-7);
  return {
    Phone: `+49 ${30 + (decoded % 70)} ${number}`,
    Mobile: '',
    Fax: `+49 ${30 + (decoded % 70)} ${number}9`,
    Email: `info@${slug}.example`,
    Url: `https://www.${slug}.example`,
    Url2: null,
    Url3: null,
  };
}

/** A fixed date in 2020-2021 derived from the id, in the spec's `yyyy-MM-dd HH:mm:ss.fff` form. */
function dateOf(decoded: number): string {
  const ms = Date.UTC(2020, 0, 1) + (decoded % 730) * 86_400_000 + (decoded % 86_400) * 1000;
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}
