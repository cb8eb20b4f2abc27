/**
 * The examples and notes each command's `--help` ends with (commander's addHelpText 'after'):
 * what a person types first, and where to read on. The job kinds come from the registry.
 */
import { JOB_KINDS } from '../jobs/index.js';

export const PROGRAM_HELP = `
Start here:
  $ geobatch init customers.csv                  # a commented job file for your input
  $ geobatch run customers.geocode.yaml --emulator --limit 50   # try it, no key needed
  $ geobatch run customers.geocode.yaml --resume                # the real run (GEOBATCH_API_KEY)
  $ geobatch demo                                # every sample job against the emulator

Across machines: geobatch run job.yaml --queue postgres://... with geobatch worker --queue
postgres://... on each; geobatch status shows where the runs stand.

Each command explains itself: geobatch <command> --help. The README has the whole story.`;

export const RUN_HELP = `
Examples:
  $ geobatch run jobs/geocode.yaml --emulator              # against the embedded emulator
  $ geobatch run job.yaml --limit 50                       # try the first 50 rows
  $ geobatch run job.yaml --sample 200 --seed 7            # 200 rows drawn from the whole file
  $ geobatch run job.yaml --dry-run --rate 20              # rows, requests, time; sends nothing
  $ geobatch run job.yaml --resume --log-file run.log      # cron: continue, log JSON to a file
  $ geobatch run job.yaml -i other.csv -o - | head         # another input, results to stdout
  $ geobatch run job.yaml -o out/b.csv -o out/b.gpkg       # several outputs from one pass
  $ geobatch run job.yaml --queue postgres://db/geo --no-work   # rows answered by workers

Progress: a bar on a terminal (log lines print above it); elsewhere, and on TERM=dumb, a
progress record every --progress-interval seconds. Logs: pretty on a terminal, JSON lines elsewhere
(--log-format). NO_COLOR turns colour off, FORCE_COLOR on.
Every run logs a run.start and a run.end record at info. Beside the (first) output: the
summary (.summary.json) and an HTML run report (.report.html; --no-report for none).

Exit status: 0 every row ok, 1 stopped (checkpoint kept: rerun with --resume), 2 usage or job
file error, 3 finished with failed rows (see the error report), 4 the input not whole: no
data rows, or cut short by a syntax error.
Ctrl-C stops cleanly and keeps the checkpoint; a second Ctrl-C quits at once.`;

export const VALIDATE_HELP = `
Examples:
  $ geobatch validate jobs/geocode.yaml       # what the file resolves to: paths, formats, mapping
  $ geobatch validate job.yaml && geobatch run job.yaml --resume
  $ geobatch validate --check-env job.yaml    # on the host that runs it: its keys set too

Nothing is sent; the input's first 100,000 rows (every row with --all-rows) are planned as the
run plans them, and the rows line says how many were; a matrix's destinations file is read
whole, as the run reads it. An input that does
not exist yet is a warning. An error names the file, the key and what was expected (exit 2);
missing credentials (or a service address) are only a warning, as a job is often checked where
its keys are not: --check-env makes them the run's error.`;

export const EMULATOR_HELP = `
Examples:
  $ geobatch emulator                                  # http://127.0.0.1:8787, demo credentials printed
  $ geobatch emulator --port 0 --latency 20:5          # any free port, 20 ms +-5 per answer
  $ geobatch emulator --faults error503=0.05,seed=1    # 5% of answers are 503s
  $ GEOBATCH_EMULATOR_URL=http://127.0.0.1:8787 geobatch run job.yaml   # a run against it

For a single run, \`geobatch run --emulator\` starts one of its own.`;

export const DEMO_HELP = `
Examples:
  $ geobatch demo                        # every job in jobs/ on samples/, outputs to out/
  $ geobatch demo --output /tmp/demo     # outputs elsewhere

Each error report is checked against the failures planted in the samples
(samples/expected-failures.json); the exit status is 1 when one differs.`;

export const CACHE_HELP = `
Examples:
  $ geobatch cache path                          # where runs read and write answers
  $ geobatch cache stats                         # entries and bytes per interface, recent runs' hits
  $ geobatch cache prune --older-than 30d        # delete answers older than 30 days
  $ geobatch cache clear --interface geocoding   # forget every geocoding answer
  $ geobatch cache stats --cache postgres://geobatch@db/geobatch   # a shared cache

The cache holds the service's answers keyed by service, operation, parameters and item (an
address, a point, a key); never a credential. See "The request cache" in the README.`;

export const CACHE_PATH_HELP = `
Examples:
  $ geobatch cache path                                        # where runs here read and write
  $ GEOBATCH_CACHE=/data/geobatch.sqlite geobatch cache path   # where a job with that setting does

Which: --cache, else GEOBATCH_CACHE (off: none), else the default file (~/.cache/geobatch/cache.sqlite).`;

export const CACHE_STATS_HELP = `
Examples:
  $ geobatch cache stats                              # entries and bytes per interface, recent runs' hits
  $ geobatch cache stats --json                       # the same figures as JSON, for a script
  $ geobatch cache stats --cache postgres://geobatch@db/geobatch   # a shared cache

Nothing is changed; with no cache there yet it says so.`;

export const CACHE_PRUNE_HELP = `
Examples:
  $ geobatch cache prune                      # delete what has outlived its interface's lifetime
  $ geobatch cache prune --older-than 30d     # delete every answer older than 30 days
  $ geobatch cache prune --older-than 12h --cache postgres://geobatch@db/geobatch

A pruned answer is asked of the service again by the next run that needs it.`;

export const CACHE_CLEAR_HELP = `
Examples:
  $ geobatch cache clear                          # forget every answer
  $ geobatch cache clear --interface geocoding    # forget every geocoding answer

A damaged geobatch cache file is deleted and started anew; a file that is not a geobatch cache is
left alone unless --force says to delete it.`;

export const WORKER_HELP = `
Examples:
  $ geobatch worker --queue postgres://geobatch@db/geobatch                   # work until SIGTERM
  $ geobatch worker --queue postgres://geobatch@db/geobatch --exit-when-idle  # for batch schedulers
  $ geobatch worker --queue postgres://geobatch@db/geobatch --emulator        # runs started with --emulator

The job comes from the queue database; credentials and the service's address from this worker's
environment (GEOBATCH_API_KEY, GEOBATCH_*_URL). Without --queue, GEOBATCH_QUEUE names the database
(and keeps its URL out of process listings). SIGTERM hands back the chunks in hand and exits
within seconds.`;

export const STATUS_HELP = `
Examples:
  $ geobatch status nightly.yaml        # a plain run of this job file: running, stopped, finished or never run
  $ geobatch status nightly.yaml -o out/today.csv --json   # the run that wrote this output, as JSON
  $ geobatch status --queue postgres://geobatch@db/geobatch   # every distributed run: chunks, rows, rate, ETA
  $ geobatch status 3f6c0e1d --json     # one run (the start of its id) as JSON; URL from GEOBATCH_QUEUE

Given a job file (an existing file, or a name ending .yaml/.yml), status reads the lock,
checkpoint and summary beside the run's (first) output, -o naming it as for \`geobatch run\`; no queue
database is opened. A stopped or killed run's lines give the command that goes on from its
checkpoint. It exits 0 whatever state it reports; 2 for a job file that does not load
(CONFIG_INVALID) or a usage error. A RUN that matches no run in the database exits 2.`;

export const QUEUE_HELP = `
Examples:
  $ geobatch queue prune --queue postgres://geobatch@db/geobatch   # every ended run's data
  $ geobatch queue prune --older-than 7d   # runs ended a week ago or more; URL from GEOBATCH_QUEUE

It removes the stored rows and outcomes, files, queue and rate of runs that ended, and of runs
whose coordinator has been gone that long (30 s at least). A stopped or abandoned run holding
finished chunks is kept for --resume, unless --include-resumable is given.`;

/** init's help lists every kind the registry knows, with its one-line summary. */
export function initHelp(): string {
  const width = Math.max(...JOB_KINDS.map((kind) => kind.name.length));
  const kinds = JOB_KINDS.map((kind) => `  ${kind.name.padEnd(width)}  ${kind.summary}`).join('\n');
  return `
Examples:
  $ geobatch init customers.csv                    # guess the kind and mapping; writes customers.<kind>.yaml
  $ geobatch init fixes.ndjson --kind elevation    # this kind, the mapping guessed
  $ geobatch init places.geojson -o places.yaml    # name the job file
  $ geobatch init export.txt --format csv -o -     # say the format; print the file instead

The guess: each kind reads the first rows as its mapping would; of the kinds that read most of
them, the one whose mapping uses the most columns wins, a tie going to the first listed below
(so coordinates alone give reverse-geocode, addresses geocode). Columns are matched by name
(English and German: street/strasse, houseNo/hausnummer/hnr, zip/plz/postcode, city/ort/stadt,
lon/lng/laenge, lat/breite, from_lon, to_lat, ...) and lon/lat also by their values. What was
guessed is said on standard error; what could not be is a TODO in the file. A projected
coordinate format and an area export's level are read off the values and written with the reason.

Job kinds:
${kinds}`;
}
