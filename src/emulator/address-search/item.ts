/** The static part of an address record's answer item: built once per record at start. */
import type { AddressItem } from '../../contract/index.js';
import type { PostalRow } from '../datasets/postal.js';
import type { Branch } from './branches.js';
import type { Identifiers } from './identifiers.js';

/**
 * Every documented field of an address item. `distance` goes into BasicData.Geo.Distance (records.ts
 * puts a marker there and splits the JSON at it, to fill in each request's distance).
 */
export function itemOf(
  row: PostalRow,
  folded: string,
  city: string,
  ids: Identifiers,
  branches: Branch[],
  distance: string,
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
        Distance: distance,
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
