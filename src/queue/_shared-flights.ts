/**
 * Identical items of the chunks a run's workers answer at once, bought once. Each chunk has an
 * engine of its own, whose dedup ends at the chunk; the request cache they share answers an item
 * only once its answer is written, and chunks side by side ask for their items at about the same
 * time: without this, an item two of them hold was bought by both. So the chunks of one run in one
 * worker go through one table of the items asked of the cache and not yet answered: a chunk that
 * asks for an item another chunk is already asking for waits for that answer (as identical items
 * in flight share one request within an engine). Between workers, the items a lookup missed in the
 * cache are claimed in the queue database (_item-claims.ts): an item another worker claimed is
 * read from the cache as soon as that worker has written its answer there, or asked here once the
 * worker lets go of it unanswered.
 *
 * Waits cannot close a circle: a lookup claims its new items at once, before it waits, so an item
 * it finds claimed was claimed by an earlier lookup, and a lookup waits only on earlier ones. For
 * that to hold across workers, a worker's lookups make their claims in the database in the order
 * they made them here (`turn`), and the database orders all workers' claims (one lock). A
 * claimed item whose lookup has returned is a request of its chunk's engine, which sends it
 * whatever other chunks do (a one-step job's partial batch leaves after its linger), so only a
 * request that fails as a whole (no answer to share) or a chunk that stops keeps a waiter waiting:
 * the chunk's end lets its claims go, and the waiter then asks itself. A request held back (a low
 * rate, a Retry-After pause, retries) is still to come: its chunk renews its claims in the
 * database meanwhile, so that the item is not bought twice; only a worker that died lets them
 * lapse (CLAIM_MS). MAX_WAIT_MS is the safety net for a holder that neither answers nor lets go.
 * A later step of a pipeline keeps a partial batch until its own lookups are done, which could
 * wait on another chunk in turn: the workers share only first steps' items (a one-step job's, a
 * pipeline's first), whose requests no later step holds back.
 */
import { randomUUID } from 'node:crypto';
import type { CacheAnswers } from '../cache/answers.js';
import type { AnswerCache, AnswerLookup } from '../engine/answers.js';
import type { EngineCounters } from '../engine/counters.js';
import type { ItemResult } from '../engine/job.js';
import type { ItemClaims } from './_item-claims.js';
import { pause } from './_pause.js';

/**
 * The longest a lookup waits for another chunk's request of the same item before asking itself.
 * That chunk answers, fails or lets go of it long before, but for a defect: this bounds the cost
 * of one to a second purchase after a while, never a run that hangs.
 */
export const MAX_WAIT_MS = 10 * 60_000;
/** How often a lookup looks for the answers of the items other workers claimed, at first... */
export const POLL_MS = 50;
/** ...and at the least, once it has waited a while. */
const POLL_MAX_MS = 1000;
/**
 * How long failed items gather before their claims in the database are let go together (after
 * the cache has written what it keeps of them): one statement for that time, not one per item.
 */
const LET_GO_MS = 50;
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

export interface SharedFlightsOptions {
  readonly now?: () => number;
  /** The run's claims among all its workers; absent, only this worker's chunks share. */
  readonly remote?: ItemClaims;
  /** Resolves once the answers remembered so far are in the cache (before their claims go). */
  readonly written?: () => Promise<void>;
}

/** A lookup's place among this worker's claims in the database. */
interface Turn {
  /** The lookups before this one have made their claims. */
  readonly ready: Promise<void>;
  /** This lookup has made its claims (or has none to make). */
  pass(): void;
}

/** One run's items in flight in this worker, across its chunks. */
export class SharedFlights {
  readonly claims = new Map<string, Claim>();
  readonly now: () => number;
  readonly remote: ItemClaims | undefined;
  readonly written: () => Promise<void>;
  /** Settled claims with an answer, kept until `until`, oldest first. */
  private readonly kept: { key: string; claim: Claim; until: number }[] = [];
  /** Resolves once every lookup so far has made its claims in the database. */
  private claimed: Promise<void> = Promise.resolve();

  constructor(options: SharedFlightsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.remote = options.remote;
    this.written = options.written ?? (async () => {});
  }

  /** The answer cache one chunk's engine uses: `answers`, with the run's other chunks in front. */
  view(answers: CacheAnswers, counters: EngineCounters, signal?: AbortSignal): ChunkAnswers {
    return new ChunkAnswers(this, answers, counters, signal);
  }

  /** Takes the next place among the claims; called as a lookup makes its claims here. */
  turn(): Turn {
    const before = this.claimed;
    let pass: () => void = () => {};
    const passed = new Promise<void>((resolve) => {
      pass = resolve;
    });
    this.claimed = Promise.all([before, passed]).then(() => {});
    return { ready: before, pass };
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
  /** The owner of this chunk's claims in the database. */
  readonly id = randomUUID();
  readonly claimsItems = true;
  /** The items this chunk claimed, to let go of those still unanswered when it ends. */
  private readonly mine = new Set<string>();
  /** The items this chunk holds in the database and has no answer for yet. */
  private readonly held = new Set<string>();
  /** Failed items whose claims in the database go at the next let-go. */
  private failed: string[] = [];
  private letGoTimer: NodeJS.Timeout | undefined;
  private lettingGo: Promise<void> = Promise.resolve();
  /** Renews this chunk's claims in the database while it holds items without an answer. */
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly shared: SharedFlights,
    private readonly answers: CacheAnswers,
    private readonly counters: EngineCounters,
    private readonly signal?: AbortSignal,
  ) {}

  async lookup(items: readonly AnswerLookup[]): Promise<ReadonlyMap<string, ItemResult<unknown>>> {
    this.shared.expire();
    const turn = this.shared.turn();
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
      this.fromCache(own, turn),
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
    // An answer is in the cache within milliseconds, where a waiting worker reads it: its claim
    // may stay until the chunk ends (one statement for all of them). A failure, which the cache
    // may not keep, is let go soon, so that a waiting worker does not wait for it in vain.
    if (this.held.delete(key) && !result.ok) this.letGoSoon(key);
  }

  /**
   * Items of this chunk a request took to the service: the cache's misses, counted when sent, as
   * in a single run (an item another chunk or worker answered was never sent, and is no miss).
   */
  asked(items: readonly AnswerLookup[]): void {
    this.answers.asked?.(items);
  }

  /**
   * The chunk ended: chunks waiting on its unanswered items ask for them themselves, and its
   * claims in the database go once the cache has written its answers.
   */
  async release(): Promise<void> {
    for (const key of this.mine) {
      const claim = this.shared.claims.get(key);
      if (claim?.owner === this) this.shared.settle(key, claim, undefined, false);
    }
    this.mine.clear();
    const { remote } = this.shared;
    if (remote === undefined) return;
    clearTimeout(this.letGoTimer);
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.held.clear();
    this.failed = [];
    await this.lettingGo;
    await this.quietly(async () => {
      await this.shared.written();
      await remote.release(this.id);
    });
  }

  /**
   * Own items from the cache; those it misses are claimed among the workers, and those another
   * worker holds are waited for.
   */
  private async fromCache(
    own: readonly AnswerLookup[],
    turn: Turn,
  ): Promise<ReadonlyMap<string, ItemResult<unknown>>> {
    let known: ReadonlyMap<string, ItemResult<unknown>> = new Map();
    let others: ReadonlySet<string> = new Set();
    let claimed: AnswerLookup[] = [];
    try {
      if (own.length > 0) known = await this.answers.lookup(own);
      const { remote } = this.shared;
      const missed = remote === undefined ? [] : own.filter((i) => !known.has(i.key)).map((i) => i.key);
      if (remote !== undefined && missed.length > 0) {
        await turn.ready;
        // A claim that fails (the database going away) claims nothing: the items are bought here,
        // and the worker hears of the database from its own queries.
        const taken = await remote.claim(this.id, missed).catch(() => undefined);
        if (taken !== undefined) {
          others = taken;
          claimed = own.filter((i) => !known.has(i.key) && !taken.has(i.key));
          for (const { key } of claimed) this.held.add(key);
          if (this.held.size > 0) this.renewing(remote);
        }
      }
    } finally {
      turn.pass();
    }
    // Read again what this lookup just claimed: between its read and its claim (its turn may wait
    // behind the worker's earlier lookups), another worker may have answered an item and let go.
    const late = claimed.length === 0 ? undefined : await this.answers.recheck(claimed);
    const fromWorkers =
      others.size === 0 ? undefined : await this.fromOtherWorkers(own.filter((i) => others.has(i.key)));
    if ((late?.size ?? 0) === 0 && (fromWorkers?.size ?? 0) === 0) return known;
    return new Map([...known, ...(late ?? []), ...(fromWorkers ?? [])]);
  }

  /**
   * Reads the answers of these items from the cache as the workers holding them write them; an
   * item let go unanswered (or whose claim lapsed), still unanswered after MAX_WAIT_MS, or waited
   * for when the chunk stops is left out (asked of the service here). The database is asked
   * every POLL_MS at first, less often as the wait grows (a Retry-After pause may last minutes).
   */
  private async fromOtherWorkers(items: readonly AnswerLookup[]): Promise<Map<string, ItemResult<unknown>>> {
    const found = new Map<string, ItemResult<unknown>>();
    const remote = this.shared.remote as ItemClaims;
    const until = this.shared.now() + MAX_WAIT_MS;
    let waiting = items;
    let every = POLL_MS;
    while (waiting.length > 0 && this.signal?.aborted !== true && this.shared.now() < until) {
      await pause(every, this.signal);
      every = Math.min(POLL_MAX_MS, every * 1.25);
      // Held first, then read: an owner writes what the cache keeps before it lets go, so an item
      // let go and not in the cache has no answer to wait for.
      const held = await remote.held(waiting.map((i) => i.key)).catch(() => undefined);
      if (held === undefined) break;
      const hits = await this.answers.recheck(waiting);
      for (const [key, result] of hits) found.set(key, result);
      waiting = waiting.filter((i) => held.has(i.key) && !hits.has(i.key));
    }
    return found;
  }

  /**
   * Renews the claims of the items this chunk holds unanswered, four times a claim's time, until
   * it holds none: a request held back longer than CLAIM_MS keeps its item. A renewal that fails
   * (the database going away) is tried again at the next tick; the claims lapse if none succeeds.
   */
  private renewing(remote: ItemClaims): void {
    if (this.renewTimer !== undefined) return;
    let running = false;
    this.renewTimer = setInterval(() => {
      if (this.held.size === 0) {
        clearInterval(this.renewTimer);
        this.renewTimer = undefined;
        return;
      }
      if (running) return;
      running = true;
      void this.quietly(() => remote.renew(this.id, [...this.held])).finally(() => {
        running = false;
      });
    }, remote.claimMs / 4);
    this.renewTimer.unref();
  }

  /** Lets go of a failed item's claim in the database soon, with the others failed by then. */
  private letGoSoon(key: string): void {
    this.failed.push(key);
    if (this.letGoTimer !== undefined) return;
    this.letGoTimer = setTimeout(() => {
      this.letGoTimer = undefined;
      const keys = this.failed;
      this.failed = [];
      const remote = this.shared.remote as ItemClaims;
      this.lettingGo = this.lettingGo.then(() =>
        this.quietly(async () => {
          await this.shared.written();
          await remote.release(this.id, keys);
        }),
      );
    }, LET_GO_MS);
  }

  /**
   * Claims are an economy, not a guarantee: a failure to let go (the database going away) leaves
   * claims that expire after CLAIM_MS, and the worker hears of the database from its own queries.
   */
  private async quietly(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch {
      // See above.
    }
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
    timer = setTimeout(resolve, MAX_WAIT_MS);
  });
  try {
    await Promise.race([Promise.all(answers), late]);
  } finally {
    clearTimeout(timer);
  }
}
