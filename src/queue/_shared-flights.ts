/**
 * Identical items of the chunks one worker answers at once, bought once. Each chunk has an engine
 * of its own, whose dedup ends at the chunk; the request cache they share answers an item only
 * once its answer is written, and chunks side by side ask for their items at about the same
 * time: without this, an item two of them hold was bought by both (a worker holds two chunks by
 * default). So the chunks of one run in one worker go through one table of the items asked of the
 * cache and not yet answered: a chunk that asks for an item another chunk is already asking for
 * waits for that answer (as identical items in flight share one request within an engine).
 *
 * Waits cannot close a circle: a lookup claims its new items at once, before it waits, so an item
 * it finds claimed was claimed by an earlier lookup, and a lookup waits only on earlier ones. A
 * claimed item whose lookup has returned is a request of its chunk's engine, which sends it
 * whatever other chunks do (a one-step job's partial batch leaves after its linger), so only a
 * request that fails as a whole (no answer to share) or a chunk that stops keeps a waiter waiting:
 * the chunk's end lets its claims go, and WAIT_MS bounds the rest; the waiter then asks itself.
 * A later step of a pipeline keeps a partial batch until its own lookups are done, which could
 * wait on another chunk in turn: the worker shares only one-step jobs' items.
 *
 * Workers on other machines still each buy an item their chunks hold at the same time: that
 * would take a claim in PostgreSQL per item.
 */
import type { AnswerCache, AnswerLookup } from '../engine/answers.js';
import type { EngineCounters } from '../engine/counters.js';
import type { ItemResult } from '../engine/job.js';

/** The longest a lookup waits for another chunk's request of the same item before asking itself. */
export const WAIT_MS = 10_000;
/**
 * How long an answer stays in the table after it arrived: the cache writes it within
 * milliseconds, and a lookup in between would otherwise miss it in both.
 */
const KEEP_MS = 1000;

interface Claim {
  /** The chunk that asks. */
  readonly owner: ChunkAnswers;
  /** Set once: the answer, or none (the chunk let it go unanswered). */
  settled: boolean;
  result: ItemResult<unknown> | undefined;
  readonly answered: Promise<void>;
  readonly resolve: () => void;
}

function claimFor(owner: ChunkAnswers): Claim {
  let resolve: () => void = () => {};
  const answered = new Promise<void>((done) => {
    resolve = done;
  });
  return { owner, settled: false, result: undefined, answered, resolve };
}

/** One run's items in flight in this worker, across its chunks. */
export class SharedFlights {
  readonly claims = new Map<string, Claim>();
  /** Settled claims with an answer, kept until `until`, oldest first. */
  private readonly kept: { key: string; claim: Claim; until: number }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** The answer cache one chunk's engine uses: `answers`, with this worker's other chunks in front. */
  view(answers: AnswerCache, counters: EngineCounters): ChunkAnswers {
    return new ChunkAnswers(this, answers, counters);
  }

  settle(key: string, claim: Claim, result: ItemResult<unknown> | undefined, keep: boolean): void {
    if (claim.settled) return;
    claim.settled = true;
    claim.result = result;
    claim.resolve();
    if (keep && result !== undefined) this.kept.push({ key, claim, until: this.now() + KEEP_MS });
    else if (this.claims.get(key) === claim) this.claims.delete(key);
  }

  expire(): void {
    const now = this.now();
    while (this.kept.length > 0 && (this.kept[0]?.until ?? 0) <= now) {
      const { key, claim } = this.kept.shift() as { key: string; claim: Claim };
      if (this.claims.get(key) === claim) this.claims.delete(key);
    }
  }
}

export class ChunkAnswers implements AnswerCache {
  /** The items this chunk claimed, to let go of those still unanswered when it ends. */
  private readonly mine = new Set<string>();

  constructor(
    private readonly shared: SharedFlights,
    private readonly answers: AnswerCache,
    private readonly counters: EngineCounters,
  ) {}

  async lookup(items: readonly AnswerLookup[]): Promise<ReadonlyMap<string, ItemResult<unknown>>> {
    this.shared.expire();
    const { claims } = this.shared;
    const found = new Map<string, ItemResult<unknown>>();
    const own: AnswerLookup[] = [];
    const waits: { key: string; claim: Claim }[] = [];
    for (const item of items) {
      const claim = claims.get(item.key);
      if (claim?.result !== undefined) this.fromAnother(found, item.key, claim.result);
      else if (claim === undefined || claim.settled) {
        claims.set(item.key, claimFor(this));
        this.mine.add(item.key);
        own.push(item);
      } else if (claim.owner === this) own.push(item);
      else waits.push({ key: item.key, claim });
    }
    const [known] = await Promise.all([
      own.length === 0 ? new Map<string, ItemResult<unknown>>() : this.answers.lookup(own),
      waitFor(waits.map((w) => w.claim.answered)),
    ]);
    for (const { key } of own) {
      const hit = known.get(key);
      if (hit === undefined) continue;
      found.set(key, hit);
      // The cache has it: the chunks waiting take it, later ones find it there.
      const claim = claims.get(key);
      if (claim?.owner === this) this.shared.settle(key, claim, hit, false);
    }
    // Unanswered in time (a request that failed as a whole, a chunk that stopped): asked here.
    for (const { key, claim } of waits)
      if (claim.result !== undefined) this.fromAnother(found, key, claim.result);
    return found;
  }

  remember(key: string, item: unknown, result: ItemResult<unknown>): void {
    this.shared.expire();
    this.answers.remember(key, item, result);
    const claim = this.shared.claims.get(key);
    if (claim?.owner === this) this.shared.settle(key, claim, result, true);
  }

  /** The chunk ended: chunks waiting on its unanswered items ask for them themselves. */
  release(): void {
    for (const key of this.mine) {
      const claim = this.shared.claims.get(key);
      if (claim?.owner === this) this.shared.settle(key, claim, undefined, false);
    }
    this.mine.clear();
  }

  /** Another chunk's answer, counted as dedup: an identical item's request answered it. */
  private fromAnother(
    found: Map<string, ItemResult<unknown>>,
    key: string,
    result: ItemResult<unknown>,
  ): void {
    found.set(key, result);
    this.counters.dedupHits++;
  }
}

async function waitFor(answers: readonly Promise<void>[]): Promise<void> {
  if (answers.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, WAIT_MS);
  });
  try {
    await Promise.race([Promise.all(answers), late]);
  } finally {
    clearTimeout(timer);
  }
}
