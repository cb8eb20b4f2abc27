/** Counts per endpoint, interface and outcome, and a bounded ring of the last requests. */
import type { EmulatorStats, InterfaceName, OutcomeCounts, RequestLogEntry } from './types.js';

export const LOG_CAPACITY = 100_000;

export class Stats {
  #total = 0;
  #byEndpoint: Record<string, OutcomeCounts> = {};
  #byInterface: Partial<Record<InterfaceName, OutcomeCounts>> = {};
  #tokensIssued = 0;
  #seq = 0;
  #ring: RequestLogEntry[] = [];
  #head = 0;
  readonly #capacity: number;

  constructor(capacity = LOG_CAPACITY) {
    this.#capacity = capacity;
  }

  nextSeq(): number {
    return ++this.#seq;
  }

  tokenIssued(): void {
    this.#tokensIssued++;
  }

  record(entry: RequestLogEntry): void {
    const outcome = String(entry.outcome);
    this.#total++;
    const endpoint = `${entry.method} ${entry.path}`;
    this.#byEndpoint[endpoint] = count(this.#byEndpoint[endpoint], outcome);
    this.#byInterface[entry.interface] = count(this.#byInterface[entry.interface], outcome);
    if (this.#ring.length < this.#capacity) this.#ring.push(entry);
    else {
      this.#ring[this.#head] = entry;
      this.#head = (this.#head + 1) % this.#capacity;
    }
  }

  snapshot(): EmulatorStats {
    return structuredClone({
      total: this.#total,
      byEndpoint: this.#byEndpoint,
      byInterface: this.#byInterface,
      tokensIssued: this.#tokensIssued,
    });
  }

  /** Oldest first. */
  log(): RequestLogEntry[] {
    return [...this.#ring.slice(this.#head), ...this.#ring.slice(0, this.#head)].map((e) => ({ ...e }));
  }

  reset(): void {
    this.#total = 0;
    this.#byEndpoint = {};
    this.#byInterface = {};
    this.#tokensIssued = 0;
    this.#ring = [];
    this.#head = 0;
  }
}

function count(counts: OutcomeCounts = { total: 0, byOutcome: {} }, outcome: string): OutcomeCounts {
  counts.total++;
  counts.byOutcome[outcome] = (counts.byOutcome[outcome] ?? 0) + 1;
  return counts;
}
