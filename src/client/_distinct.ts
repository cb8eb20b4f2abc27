/**
 * Which requests are evidence of an outage (_outage.ts) or of an error storm (_storm.ts), by their
 * identity (a digest of what they ask, the same across attempts and the engine's second pass).
 * One request alone is not: a "poison"
 * row that the service hangs or answers 5xx while it serves every other one stopped a 120-row run
 * (SERVICE_UNREACHABLE after retry.outageMs) whenever nothing else was left to send, its attempts
 * and its second pass read as the outage's requests, and `--resume` stopped at the same row every
 * time. So a request out of retries waits for the service or counts towards the stop only when
 * another distinct request, not a known poison one, has met the same since the interface's last
 * answer; else it fails its row (TIMEOUT, NETWORK, RETRIES_EXHAUSTED) and the run goes on. A
 * request the service failed while it served others sent after it is poison: its later passes
 * are not evidence either. Nor does the interface have to have served in this session: a nightly
 * rerun whose cache answered every other row sent the poison row alone, and stopped on it every
 * night. What this costs: a run that sends one request at a time to a service that hangs or
 * answers 5xx loses the first of them to the error report (the second is the evidence, and
 * waits), and a run of one request fails it rather than stops. A refused connection is always
 * evidence (transport.ts): no row gets itself refused.
 */
import type { InterfaceName } from './options.js';

/** Poison requests remembered, per interface; a bound that a run never reaches. */
const MAX_POISON = 1_000;

interface Watch {
  /** Requests whose attempts met no answer (or a failing one) since its last. */
  readonly unanswered: Set<string>;
  /** Requests the interface failed while serving others: never evidence. */
  readonly poison: Set<string>;
}

/** Per interface: the distinct requests that went unanswered (or unserved) since its last answer. */
export class Distinct {
  readonly #watches = new Map<InterfaceName, Watch>();

  /** The interface answered (served): what went unanswered before is no evidence any more. */
  heard(service: InterfaceName): void {
    this.#watch(service).unanswered.clear();
  }

  /** An attempt of `request` met no answer (or a failing one). */
  unanswered(service: InterfaceName, request: string): void {
    const watch = this.#watch(service);
    if (!watch.poison.has(request)) watch.unanswered.add(request);
  }

  /** `request` failed while the interface served others: it is no evidence, now or later. */
  poison(service: InterfaceName, request: string): void {
    const watch = this.#watch(service);
    if (watch.poison.size >= MAX_POISON) watch.poison.clear();
    watch.poison.add(request);
    watch.unanswered.delete(request);
  }

  /**
   * Whether `request`, out of retries, is no evidence of an outage: it is poison, or no other
   * request has gone unanswered since the interface's last answer.
   */
  alone(service: InterfaceName, request: string): boolean {
    const watch = this.#watches.get(service);
    if (watch === undefined) return true;
    if (watch.poison.has(request)) return true;
    for (const other of watch.unanswered) if (other !== request) return false;
    return true;
  }

  #watch(service: InterfaceName): Watch {
    let watch = this.#watches.get(service);
    if (watch === undefined) {
      watch = { unanswered: new Set(), poison: new Set() };
      this.#watches.set(service, watch);
    }
    return watch;
  }
}
