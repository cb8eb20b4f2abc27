/**
 * Fills a cache file with `count` geocoding answers for addresses no bench input holds, under the
 * very scope a `geobatch run` of the bench's geocode job against `origin` uses: the run then
 * looks its items up in a B-tree of that size.
 */
import { answerParams, ITEM_POLICIES } from '../../src/cache/_kinds.js';
import { scopeOf, serviceIdentity } from '../../src/cache/key.js';
import { openSqliteStore } from '../../src/cache/sqlite.js';
import { emulatorEndpoints } from '../../src/config/service.js';
import { locationKey } from '../../src/jobs/geocode.js';

export async function fillCache(file: string, origin: string, count: number): Promise<void> {
  const policy = ITEM_POLICIES.geocode;
  if (policy === undefined) throw new Error('no geocode policy');
  const scope = scopeOf({
    interface: policy.interface,
    service: serviceIdentity(emulatorEndpoints(origin).geojson),
    operation: policy.operation,
    params: answerParams(policy, undefined),
    format: policy.format,
  });
  const store = openSqliteStore(file);
  if (store === undefined) throw new Error(`cannot open ${file}`);
  const createdAt = Date.now();
  const chunk = 20_000;
  for (let start = 0; start < count; start += chunk) {
    const entries = [];
    for (let i = start; i < Math.min(count, start + chunk); i++) {
      const location = {
        street: `Füllstraße ${i % 997}`,
        houseNo: String(i),
        zip: '10115',
        city: 'Berlin',
        country: 'DE',
      };
      const match = {
        lon: 13.38 + (i % 1000) / 1e5,
        lat: 52.53 + (i % 777) / 1e5,
        street: location.street,
        houseNo: location.houseNo,
        zip: location.zip,
        city: location.city,
        district: 'Mitte',
        isoCountry: 'DE',
        description: `${location.street} ${location.houseNo}, ${location.zip} ${location.city}`,
        matchLevel: 'HOUSE',
      };
      entries.push({
        scope,
        item: locationKey(location),
        value: JSON.stringify({ ok: true, value: { match, candidates: 1 } }),
        notFound: false,
        createdAt,
      });
    }
    await store.putMany(entries);
  }
  await store.close();
}
