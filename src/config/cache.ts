/**
 * The job file's `cache:` block. `false` turns the cache off for this job; a string is where it
 * lives (a file, relative to the job file, or a `postgres://` URL); the long form also sets the
 * mode and the lifetimes. `--cache`, `--no-cache` and GEOBATCH_CACHE override where it lives;
 * only `--cache PATH` (not GEOBATCH_CACHE) overrides `false` (src/cache/settings.ts).
 */
import { z } from 'zod';
import { nearest } from './_suggest.js';

export const CACHE_MODES = ['use', 'refresh', 'read-only'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

const days = z.number().nonnegative();

/** Words that mean "no cache" to a person but would name a cache file: `cache: no` is not off. */
const NOT_OFF = ['no', 'n', 'none', 'null', '0', 'disabled', 'disable', 'nocache', 'no-cache'];

/** `cache: no` or `cache: fasle` would be read as a file of that name beside the job file. */
function offMisspelt(value: unknown, ctx: z.RefinementCtx): void {
  if (typeof value !== 'string') return;
  const word = value.trim().toLowerCase();
  if (word === 'off' || word === 'false') return;
  const meant = NOT_OFF.includes(word) ? 'false' : nearest(word, ['false', 'off']);
  if (meant === undefined) return;
  ctx.addIssue({
    code: 'custom',
    message: `expected a cache file, a postgres:// URL, or \`${meant}\` for no cache (a word like this would name a cache file)`,
  });
}

export const cacheSchema = z
  .union([
    z.literal(false),
    z.string().min(1),
    z.strictObject({
      path: z.string().min(1).optional(),
      mode: z.enum(CACHE_MODES).optional(),
      /**
       * Days an answer is used, per interface; `notFound` for "nothing found" answers, which are
       * never used longer than their interface's answers.
       */
      lifetimes: z
        .strictObject({
          geocoding: days.optional(),
          elevation: days.optional(),
          area: days.optional(),
          addressSearch: days.optional(),
          routing: days.optional(),
          autocomplete: days.optional(),
          notFound: days.optional(),
        })
        .optional(),
    }),
  ])
  .superRefine(offMisspelt);
export type CacheBlock = z.infer<typeof cacheSchema>;
