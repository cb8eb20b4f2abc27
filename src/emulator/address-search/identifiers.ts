/**
 * Content-derived identifiers of an address record: stable across restarts and load order, since
 * clients store them (customer keys, YMIDs) between runs.
 */
import { createHash } from 'node:crypto';
import { fnv1a } from '../lib/_rng.js';

export type Identifiers = {
  YMID: string;
  YMID3: string;
  YMIDUrlEncoded: string;
  YMIDPathEncoded: string;
  YMIDDecoded: string;
  ProviderID: string;
  ProviderForeignKey: string;
  ProviderEnum: string;
};

export const PROVIDER_ID = '37';
export const PROVIDER_ENUM = 'GEONAMES';

/**
 * Numeric ids (9 digits) for content keys. Keys are taken in sorted order and a hash collision
 * moves on to the next free number, so that the result depends on the data alone.
 */
export function assignNumbers(contentKeys: readonly string[]): Map<string, number> {
  const taken = new Set<number>();
  const out = new Map<string, number>();
  for (const key of [...new Set(contentKeys)].sort()) {
    let n = 100_000_000 + (fnv1a(key) % 900_000_000);
    while (taken.has(n)) n = n >= 999_999_999 ? 100_000_000 : n + 1;
    taken.add(n);
    out.set(key, n);
  }
  return out;
}

/**
 * YMID: 16 bytes (the id, masked, and 12 bytes of keyed hash) in standard Base64, so that it ends in
 * "==" and often holds "+" or "/": the characters that make URL-encoding matter.
 */
export function identifiersFor(decoded: number): Identifiers {
  const digest = createHash('sha256').update(`geobatch-emulator-ymid:${decoded}`).digest();
  const bytes = Buffer.alloc(16);
  bytes.writeUInt32BE((decoded ^ digest.readUInt32BE(12)) >>> 0, 0);
  digest.copy(bytes, 4, 0, 12);
  const ymid = bytes.toString('base64');
  return {
    YMID: ymid,
    YMID3: decoded.toString(36).toUpperCase(),
    YMIDUrlEncoded: encodeURIComponent(ymid),
    YMIDPathEncoded: bytes.toString('base64url'),
    YMIDDecoded: String(decoded),
    ProviderID: PROVIDER_ID,
    ProviderForeignKey: providerKey(decoded),
    ProviderEnum: PROVIDER_ENUM,
  };
}

export function providerKey(decoded: number): string {
  return `GN${String(decoded).padStart(10, '0')}`;
}
