/** Ranks repository entities for a query: match quality, size, type, then the requested boosts. */
import { haversine } from '../lib/_geo.js';
import { fold, tokens } from '../lib/_text.js';
import type { Entity, Repository } from './entities.js';
import type { ValidRequest } from './request.js';

export interface Suggestion {
  entity: Entity;
  score: number;
}

/** How much an entity type is worth by itself, when all else is equal. */
const TYPE_WEIGHT: Record<string, number> = {
  COUNTRY: 1,
  STATE: 0.9,
  CITY: 0.8,
  ZIP: 0.7,
  DISTRICT: 0.6,
  CITY_WITH_ZIP: 0.5,
  CITYPART: 0.4,
};

export function suggest(repo: Repository, req: ValidRequest): Suggestion[] {
  if (req.countries && !req.countries.includes('DE')) return [];
  const query = fold(req.query);
  const words = tokens(query);
  const lookup = words.reduce((a, b) => (b.length > a.length ? b : a), '');
  if (lookup === '') return [];
  const seen = new Set<Entity>();
  const found: Suggestion[] = [];
  for (const { value: entity } of repo.index.withPrefix(lookup)) {
    if (seen.has(entity)) continue;
    seen.add(entity);
    if (!passes(entity, req) || !words.every((w) => hasWordPrefix(entity, w))) continue;
    found.push({ entity, score: score(entity, query, req) });
  }
  found.sort((a, b) => b.score - a.score || a.entity.seq - b.entity.seq);
  return found.slice(0, req.top);
}

function hasWordPrefix(entity: Entity, word: string): boolean {
  for (const w of entity.words) if (w.startsWith(word)) return true;
  return false;
}

function passes(entity: Entity, req: ValidRequest): boolean {
  if (req.included && !req.included.has(entity.type)) return false;
  if (req.excluded.has(entity.type)) return false;
  if (req.plzSearch && entity.zip === null) return false;
  return !req.inBoundingBox || inBox(entity, req.box);
}

function inBox(entity: Entity, box: ValidRequest['box']): boolean {
  return (
    box !== null &&
    entity.lon >= box.west &&
    entity.lon <= box.east &&
    entity.lat >= box.south &&
    entity.lat <= box.north
  );
}

function score(entity: Entity, query: string, req: ValidRequest): number {
  const quality = entity.folded.includes(query)
    ? 1
    : entity.folded.some((f) => f.startsWith(query))
      ? 0.8
      : 0.6;
  const size = Math.min(1, Math.log10(entity.population + 1) / 7);
  let s = 0.55 * quality + 0.35 * size + 0.1 * (TYPE_WEIGHT[entity.type] ?? 0.3);
  if (req.proximity && req.center) {
    const d = haversine(req.center.longitude, req.center.latitude, entity.lon, entity.lat);
    s += req.proximity.value * Math.max(0, 1 - d / req.proximity.radius);
  }
  if (req.boxBoost !== 0 && inBox(entity, req.box)) s += req.boxBoost;
  return Math.round(s * 10000) / 10000;
}
