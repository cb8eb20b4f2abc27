/**
 * The job file's `cache:` block. `false` turns the cache off for this job; a string is where it
 * lives (a file, relative to the job file, or a `postgres://` URL); the long form also sets the
 * mode and the lifetimes. `--cache`, `--no-cache` and GEOBATCH_CACHE override where it lives;
 * only `--cache PATH` (not GEOBATCH_CACHE) overrides `false` (src/cache/settings.ts).
 */
import { z } from 'zod';

export const CACHE_MODES = ['use', 'refresh', 'read-only'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

const days = z.number().nonnegative();

export const cacheSchema = z.union([
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
]);
export type CacheBlock = z.infer<typeof cacheSchema>;
