/**
 * The areas at several administrative levels for a batch of points, so that the levels always
 * agree: a point on a state border must not get one state and a district of the other.
 *
 * Rule (stated in the README and tested):
 * 1. The finest requested level with an area at the point is the anchor, chosen by the border rule
 *    (lowest key among the areas that cover the point).
 * 2. Every coarser level takes the area that contains the anchor: the one covering a point strictly
 *    inside the anchor area (see _interior.ts). Areas nest, so that is the anchor's parent, however
 *    the point itself sits on the coarser border.
 * 3. A finer level with no area at the point, or a coarser one with no area around the anchor, is
 *    missing for that point.
 * Step 2 depends only on the anchor area, so it is done once per anchor area and remembered.
 */
import type { LonLat } from '../types.js';
import { interiorPoint } from './_interior.js';
import type { AreaFeature } from './_ports.js';

/** Areas at the requested levels (ascending) for one point; undefined where none covers it. */
export type LevelAreas = readonly (AreaFeature | undefined)[];

/** The area covering each point at one level by the border rule, or undefined. */
export type Locate = (
  level: number,
  points: readonly LonLat[],
) => Promise<readonly (AreaFeature | undefined)[]>;

/** Coarser areas by anchor (`<level>:<key>><coarser level>`), null when none contains it. */
export type AncestorMemo = Map<string, AreaFeature | null>;

interface Anchor {
  readonly rank: number;
  readonly area: AreaFeature;
}

const memoKey = (anchorLevel: number, area: AreaFeature, level: number) =>
  `${anchorLevel}:${area.key}>${level}`;

/** The area containing `anchor` at a coarser level, when it is already known. */
export function knownAncestor(memo: AncestorMemo, anchorLevel: number, anchor: AreaFeature, level: number) {
  return memo.get(memoKey(anchorLevel, anchor, level));
}

/** Step 1: per point, the finest level (its rank in `levels`) with an area, asking coarser levels only for what is left. */
async function anchorsOf(points: readonly LonLat[], levels: readonly number[], locate: Locate) {
  const anchors: (Anchor | undefined)[] = points.map(() => undefined);
  let pending = points.map((_, i) => i);
  for (let rank = levels.length - 1; rank >= 0 && pending.length > 0; rank--) {
    const found = await locate(
      levels[rank] as number,
      pending.map((i) => points[i] as LonLat),
    );
    const left: number[] = [];
    for (const [j, i] of pending.entries()) {
      const area = found[j];
      if (area === undefined) left.push(i);
      else anchors[i] = { rank, area };
    }
    pending = left;
  }
  return anchors;
}

/** Step 2 for every anchor whose parents are not remembered yet: one lookup per coarser level. */
async function fillAncestors(
  anchors: readonly (Anchor | undefined)[],
  levels: readonly number[],
  locate: Locate,
  memo: AncestorMemo,
): Promise<void> {
  for (let rank = 0; rank < levels.length - 1; rank++) {
    const level = levels[rank] as number;
    const wanted = new Map<string, LonLat>();
    for (const anchor of anchors) {
      if (anchor === undefined || anchor.rank <= rank) continue;
      const key = memoKey(levels[anchor.rank] as number, anchor.area, level);
      if (memo.has(key) || wanted.has(key)) continue;
      const inner = interiorPoint(anchor.area.geometry);
      if (inner === undefined) memo.set(key, null);
      else wanted.set(key, inner);
    }
    if (wanted.size === 0) continue;
    const found = await locate(level, [...wanted.values()]);
    [...wanted.keys()].forEach((key, i) => {
      memo.set(key, found[i] ?? null);
    });
  }
}

function assemble(anchor: Anchor | undefined, levels: readonly number[], memo: AncestorMemo): LevelAreas {
  if (anchor === undefined) return levels.map(() => undefined);
  const anchorLevel = levels[anchor.rank] as number;
  return levels.map((level, rank) => {
    if (rank > anchor.rank) return undefined;
    if (rank === anchor.rank) return anchor.area;
    return knownAncestor(memo, anchorLevel, anchor.area, level) ?? undefined;
  });
}

/** Areas at every level for each point, by the rule above; `memo` may be kept across calls. */
export async function resolveLevels(
  points: readonly LonLat[],
  levels: readonly number[],
  locate: Locate,
  memo: AncestorMemo = new Map(),
): Promise<LevelAreas[]> {
  const anchors = await anchorsOf(points, levels, locate);
  await fillAncestors(anchors, levels, locate, memo);
  return anchors.map((anchor) => assemble(anchor, levels, memo));
}
