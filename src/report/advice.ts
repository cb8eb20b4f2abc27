/**
 * What to do about each error code: the one place this advice lives. The report shows it beside
 * every failure count, and the README's table of codes is checked against it by a test.
 */
import type { ErrorCode } from '../errors.js';

export const ERROR_ADVICE = {
  INPUT_MALFORMED:
    'Fix the record in the input (the report holds its text, `raw`): close the quote, quote a field holding a quote (`""` inside), or repair the JSON or the geometry (a ring closed, positions within ±180 and ±90).',
  FIELD_MISSING:
    'Fill the field in the input, or point `mapping` in the job file at the column that holds it.',
  FIELD_INVALID:
    'Correct the value the message names (out of range, not a number, a thousands separator, longitude and latitude swapped), or the `mapping` if it names the wrong column.',
  HTTP_STATUS:
    'The service refused the request (4xx) and a retry will not change that: the message and `detail` give its reason; fix the values or options it names.',
  RETRIES_EXHAUSTED:
    'The service stayed overloaded or failing through every retry: lower `--rate` or `--concurrency` (or raise `retry.maxAttempts`) and run the error report again as input.',
  TIMEOUT:
    'The service did not answer in time: raise `service.timeoutMs` or lower `--concurrency`, then run the error report again as input.',
  NETWORK:
    'The connection failed: check the network, proxy and endpoint address, then run the error report again as input.',
  RESPONSE_INVALID:
    'The answer did not have the expected shape (the message names the field): check that `service.endpoints` points at the right service and version.',
  SERVICE_REPORTED:
    'The service answered with a problem of its own (`detail`: StatusCode, PublicReport): fix what it names, such as the branch codes, position or radius.',
  NO_MATCH:
    "The service could not place the address: check street, postcode and city spelling (the service's errCode and publicReport are in `detail`).",
  NOT_FOUND:
    'The service does not know this key: check it for typos, lost leading zeros or a missing prefix.',
  AMBIGUOUS:
    'Several records answer this key and `onMultiple` is `fail`: set `first` or `all` to accept them, or make the keys unique.',
  ITEM_REJECTED:
    'The service rejected this point once it was isolated from its batch: check its coordinates (range, swapped longitude and latitude).',
  LIMIT_EXCEEDED:
    "The group (a trip's stops) is larger than one request or the run's window takes: split it into smaller groups in the input, or raise `run.window` when the message names the window.",
  OUTSIDE_COVERAGE:
    'No area at the requested level covers the point: it lies outside the covered country or at sea; check its coordinates.',
  INTERNAL: 'A defect in geobatch: the row was kept in the report. Please report it with the summary file.',
  AUTH_REJECTED:
    'The service rejected the credentials (401/403): check `GEOBATCH_API_KEY` (or the partner pair), then run again with `--resume`.',
  AUTH_MISSING: 'The service got no key (412): export `GEOBATCH_API_KEY`, then run again with `--resume`.',
  QUOTA_EXCEEDED:
    "The key's quota is spent (402), or the service asked to wait 10 minutes or more (a 429 or 503 with a long Retry-After; the message says until when), or it answered nothing but 429 for 5 minutes (10 times `retry.outageMs`; the message says at what rate): wait for it to renew or extend the contract, or run again later (with a lower `--rate` after only 429s), with `--resume`.",
  SERVICE_UNREACHABLE:
    "The service's address never answered (connection refused, no such host, connections closed without an answer), or nothing answered for 30 s (`retry.outageMs`) while its requests could not connect, timed out or had their connections closed without an answer through every retry, then waited for it, or it answered only 5xx (502, 503, 504, 500) for 30 s, its requests through every retry (the message says which): check the endpoint the message names (`service.endpoints`, `GEOBATCH_EMULATOR_URL` or the interface's `GEOBATCH_..._URL`) and that the service is up; after timeouts, that it is not hung or overloaded (raise `service.timeoutMs` if it is only slow); after 5xx, that its maintenance is over; then run again with `--resume`.",
  ENDPOINT_NOT_FOUND:
    "The service's address has no such operation: a request answered 404 as the server answers a path it does not have (not as the service answers a record it does not know), or 405, or 501 (a server of another kind, which implements no such request: check the port too): correct the path of the endpoint the message names (`service.endpoints`, the interface's `GEOBATCH_..._URL`, or `GEOBATCH_EMULATOR_URL`, which takes the emulator's origin alone), then run again.",
  INPUT_ENCODING:
    'The input is not valid UTF-8, or not text at all: set `input.encoding` to the value the message names (usually `windows-1252`) in the job file and run again from the start (a stop mid-file keeps no checkpoint and no partial output for this reason); for a workbook or a compressed file, do what the message says (save as CSV UTF-8, or decompress).',
  INPUT_EMPTY:
    'The input has no data row (0 bytes, a header only, or an empty FeatureCollection): check the step that produces it; geobatch wrote an output with no row and exits 4.',
  OUTPUT_CLOSED:
    'The program reading standard output closed it (`| head`): a normal end; run again writing to a file for every row.',
  CACHE_UNUSABLE:
    "The request cache cannot be used (damaged, from a newer geobatch, not a geobatch cache at all, or unreachable): do what the hint says: for a damaged cache file, `geobatch cache clear --cache FILE`; for a file that is not a cache, check `--cache`, `GEOBATCH_CACHE` and the job file's `cache:` (they probably name the wrong file); for a PostgreSQL cache that is unreachable or refuses the user, check the database (that it is up, the password in `PGPASSWORD` or `~/.pgpass`, the role's rights), then run again: `cache clear` cures no outage and deletes every run's answers; or add `--no-cache`.",
  QUEUE_UNUSABLE:
    "The queue database of a distributed run cannot be used (unreachable, not a geobatch queue, or the run's data is gone): check the `--queue` URL and that PostgreSQL is up, then run the coordinator again with `--resume`; done chunks are kept.",
  WORKER_MISCONFIGURED:
    "A worker of a distributed run lacks what the job needs in its own environment (an API key, a service address, a variable the job file names; the message names the worker and what it lacks): set it in that worker's environment and start it again, then run the coordinator again with `--resume`; the rows committed and the chunks done are kept.",
  IO_ERROR:
    'A file could not be written (check free disk space and permissions, then run again with `--resume`), or the input changed while it was read (the message says which: once the file is complete, run again from the start).',
  LOCKED:
    'Another run of this job holds the lock: wait for it to end; if none is running, delete the `.lock` file.',
  CHECKPOINT_MISMATCH:
    'The checkpoint belongs to another job, input or output, or a file it continues was changed or removed: resume with the same ones, or start over: `--resume --restart-if-changed` does so (except for other data on standard input), or delete the checkpoint and its `.partial` files.',
  ABORTED: 'The run was interrupted: run again with `--resume` to continue from the checkpoint.',
  INVARIANT_BROKEN:
    'The row accounting did not balance, a bug in geobatch: the checkpoint is kept; please report it with the summary file.',
  CONFIG_INVALID:
    'The job file or an option is invalid: the message names the file, the path and what was expected (`geobatch validate` checks a job file).',
  USAGE: 'The command line cannot be carried out: read the message, and `geobatch run --help`.',
} as const satisfies Record<ErrorCode, string>;

/** Advice for a code; codes from a newer version (in an old summary) get a generic line. */
export function adviceFor(code: string): string {
  return Object.hasOwn(ERROR_ADVICE, code)
    ? ((ERROR_ADVICE as Record<string, string>)[code] ?? '')
    : 'See the message and the error report.';
}
