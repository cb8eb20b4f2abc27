import type { Polygon, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/output/summary.js';
import { escWithCode } from '../../src/report/_html.js';
import { ERROR_ADVICE } from '../../src/report/advice.js';
import { createFailureExamples } from '../../src/report/failures.js';
import { createFeatureSample } from '../../src/report/features.js';
import type { RunReportData } from '../../src/report/index.js';
import { renderRunReport } from '../../src/report/render.js';
import { goldenBoundaries, issueOf, type Mutable, sampleSummary, sampleTimeline } from './_sample.js';

const HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';

function hostileData(): RunReportData {
  const failures = createFailureExamples();
  failures.add(
    issueOf({
      row: 7,
      line: 8,
      stage: 'response',
      code: 'NO_MATCH',
      status: null,
      message: `no match for ${HOSTILE}`,
      fields: { [`col${HOSTILE}`]: HOSTILE, city: 'Köln & "Umgebung"' },
    }),
  );
  const map = createFeatureSample();
  map.add({ type: 'Point', coordinates: [6.95, 50.94] }, 'failed', 7, 'NO_MATCH');
  return {
    summary: sampleSummary((s) => {
      s.job = `geocode${HOSTILE}`;
      s.input.path = `/data/${HOSTILE}.csv`;
      s.rows.failedByCode = { NO_MATCH: 1, [`X${HOSTILE}`]: 2 };
      s.error = { code: 'IO_ERROR', message: `disk full at ${HOSTILE}`, hint: HOSTILE };
      s.ended = 'stopped';
    }),
    timeline: sampleTimeline(),
    failures: failures.examples(),
    map: map.result(),
  };
}

/** `toContain` would print the whole page on failure; this prints what was looked for. */
function expectIn(page: string, part: string): void {
  expect(page.includes(part), `page should contain ${part}`).toBe(true);
}

/** The page's JSON data block. */
// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON as the browser script does
function dataOf(page: string): any {
  return JSON.parse(
    page.match(/<script type="application\/json" id="gb-data">(.*?)<\/script>/s)?.[1] ?? '{}',
  );
}

function count(html: string, pattern: RegExp): number {
  return html.match(pattern)?.length ?? 0;
}

describe('renderRunReport', () => {
  const html = renderRunReport(goldenBoundaries());

  it('shows the totals and says that the row accounting balances', () => {
    for (const [label, value] of [
      ['read', '603'],
      ['written', '603'],
      ['ok', '600'],
      ['failed', '3'],
      ['in the error report', '3'],
    ]) {
      expectIn(html, `<span class="value" data-count="${label}">${value}</span>`);
    }
    expectIn(html, 'data-balanced="true"');
    expectIn(html, 'read 603 = written 603 = ok 600 + failed 3; failed 3 = in the error report 3');
  });

  it('names every output of a run that wrote several', () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.outputs = ['csv', 'gpkg'].map((format) => ({
          path: `out/b.${format}`,
          format,
          records: 603,
          written: true,
        }));
      }),
    });
    expectIn(page, '<dt>output</dt><dd>out/b.csv (csv, 603 records)</dd>');
    expectIn(page, '<dt>output</dt><dd>out/b.gpkg (gpkg, 603 records)</dd>');
  });

  it('lists failures by code with their count, what to do and example rows', () => {
    for (const code of ['FIELD_MISSING', 'OUTSIDE_COVERAGE', 'INPUT_MALFORMED'] as const) {
      const row = html.match(new RegExp(`<tr data-code="${code}">(.*?)</tr>`))?.[1] ?? '';
      expect(row).toContain('<td class="n">1</td>');
      expect(row).toContain(escWithCode(ERROR_ADVICE[code]));
      expect(count(html, new RegExp(`<tr class="example" data-code="${code}">`, 'g'))).toBe(1);
    }
    expectIn(html, '<td class="n">301</td><td class="n">302</td><td>response</td>');
    expectIn(html, 'no level-4/6 area covers 49.00937, 8.40444');
  });

  it('explains the requests over HTTP in the direction they differ from those sent', () => {
    const over = (http: number, sent: number) => {
      const data = goldenBoundaries();
      const summary = sampleSummary((s) => {
        s.requests = { ...s.requests, http, sent };
      });
      return renderRunReport({ ...data, summary });
    };
    const fewer = over(4, 6);
    expectIn(
      fewer,
      '4 reached the service over HTTP: fewer than the requests above, as a request that failed to connect',
    );
    expect(fewer).not.toContain('retries, hedged');
    // A request answered without HTTP (a trip of one stop, the cache) is not among those sent.
    expect(fewer).not.toContain('cache holds');
    const same = over(6, 6);
    expectIn(same, '6 reached the service over HTTP, each request once.');
    expect(same).not.toContain('without one');
  });

  it('counts the requests a job asked besides one per batch, which no retry explains', () => {
    // Boundaries: 1 batch of 5 points at 3 levels took 5 HTTP requests, without a retry.
    const levels = (resumed: boolean) =>
      renderRunReport({
        ...goldenBoundaries(),
        summary: sampleSummary((s) => {
          s.requests = {
            ...s.requests,
            http: 5,
            sent: 1,
            itemsSent: 5,
            savedByBatching: 4,
            savedByLocalAnswers: 2,
          };
          s.client = { ...s.client, retries: { total: 0, byCause: {} } };
          s.resume = { ...s.resume, resumed };
        }),
      });
    const page = levels(false);
    expectIn(
      page,
      '5 requests for 7 items: one request per item would have cost 7; 28.6% saved. 4 of those the job asked besides one per batch',
    );
    expectIn(page, '5 reached the service over HTTP, each request once.');
    // The splits of a rejected batch are among them, and the savings table does not take them off.
    expectIn(page, 'a batch the service rejects is asked again in parts');
    expect(page).not.toContain('retries, hedged');
    // Resumed: `http` adds up the sessions, the client's retries are the last session's alone.
    const resumed = levels(true);
    expect(resumed).not.toContain('besides one per batch');
    // The items of rows a stop caught in flight count in both sessions: the page says so.
    expectIn(
      resumed,
      'Resumed: the rows read but not yet written when a session stopped were answered again',
    );
    expect(page).not.toContain('Resumed: the rows read');
    // Autocomplete: 32 answered 401 and asked again with a fresh token, 3 token requests.
    const tokens = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.requests = {
          ...s.requests,
          http: 188,
          sent: 153,
          itemsSent: 153,
          savedByBatching: 0,
          savedByLocalAnswers: 0,
        };
        s.client = {
          ...s.client,
          requests: { total: 185, byInterface: { autocomplete: { '200': 153, '401': 32 } } },
          retries: { total: 0, byCause: {} },
          tokensFetched: 3,
        };
      }),
    });
    expect(tokens).not.toContain('besides one per batch');
    expectIn(resumed, '1 request for 7 items');
  });

  it('shows what batching, dedup and local answers saved, and the attempts per interface', () => {
    expectIn(html, '6 requests for 1,202 items');
    expectIn(
      html,
      '9 reached the service over HTTP: retries, hedged second attempts, token requests, attempts asked again after a 401 and attempts a stop cut off count',
    );
    expect(html).toMatch(/<tr data-saved="batching"><td>batching<\/td><td class="n">430<\/td>/);
    expect(html).toMatch(/<tr data-saved="local answers"><td>local answers<\/td><td class="n">766<\/td>/);
    expect(html).not.toContain('data-saved="cache"');
    expectIn(
      html,
      '<tr data-interface="area"><td>area</td><td class="n">9</td><td class="n">6</td><td class="n">0</td><td class="n">2</td><td class="n">1</td>',
    );
  });

  it('counts attempts dropped without an answer (a hedge given up, one a stop cut off) apart, not as 2xx', () => {
    const sample = goldenBoundaries();
    const client = {
      ...sample.summary.client,
      requests: {
        total: 12,
        byInterface: { area: { '200': 6, '429': 2, '503': 1, abandoned: 1, aborted: 2 } },
      },
    } as typeof sample.summary.client;
    const page = renderRunReport({ ...sample, summary: { ...sample.summary, client } });
    expectIn(
      page,
      '<tr data-interface="area"><td>area</td><td class="n">12</td><td class="n">6</td><td class="n">0</td><td class="n">2</td><td class="n">1</td><td class="n">0</td><td class="n">0</td><td class="n">3</td></tr>',
    );
  });

  it("counts a second pass's requests as requests, not as items of their own", () => {
    const sample = goldenBoundaries();
    // One item, its request failed through every attempt and sent once more: 2 requests, 1 item.
    // Over HTTP: the 2, and the sample client's 3 retries.
    const requests = {
      ...sample.summary.requests,
      http: 5,
      sent: 2,
      resent: 1,
      itemsSent: 2,
      uniqueItems: 1,
    };
    const page = renderRunReport({
      ...sample,
      summary: {
        ...sample.summary,
        requests: { ...requests, savedByBatching: 0, savedByDedup: 0, savedByLocalAnswers: 0 },
      },
    });
    expectIn(page, '2 requests for 1 item: one request per item would have cost 1; 0% saved.');
  });

  it('adds the cache to the savings when the run used one', () => {
    const withCache = renderRunReport({ ...goldenBoundaries(), cache: { hits: 40, misses: 6 } });
    expect(withCache).toMatch(/<tr data-saved="cache"><td>cache<\/td><td class="n">40<\/td>/);
    expectIn(withCache, '6 requests for 1,242 items');
  });

  it('embeds one map feature per sampled geometry and the timeline for the chart', () => {
    const data = dataOf(html);
    expect(data.map.features.features).toHaveLength(601);
    expect(
      data.map.features.features.filter((f: { properties: { s: string } }) => f.properties.s === 'failed'),
    ).toEqual([
      {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [49.00937, 8.40444] },
        properties: { r: 301, s: 'failed', c: 'OUTSIDE_COVERAGE' },
      },
    ]);
    expect(
      data.map.outlines.features.map((f: { properties: { kind: string } }) => f.properties.kind),
    ).toEqual(['country', ...Array(16).fill('state')]);
    expect(data.map.attribution).toContain('© GeoBasis-DE / BKG 2021 (Daten verändert)');
    expect(data.timeline).toHaveLength(61);
    expectIn(html, '<div id="gb-map" class="map" data-features="601"></div>');
    expectIn(html, 'Without a geometry, so not on the map: 2 failed records.');
  });

  it('loads nothing from the network: every script and style is inline, and the page forbids loads', () => {
    expect(count(html, /<script\b[^>]*\bsrc\s*=/gi)).toBe(0);
    expect(count(html, /<link\b/gi)).toBe(0);
    expect(count(html, /<img\b/gi)).toBe(0);
    expect(count(html, /@import/gi)).toBe(0);
    // CSS url(...) may only point inside the page (a fragment or a data: URL).
    const styles = [...html.matchAll(/<style>(.*?)<\/style>/gs)].map((m) => m[1]).join('\n');
    expect(styles).toContain('.leaflet-container');
    for (const [, target] of styles.matchAll(/url\(\s*['"]?([^'")]*)/gi))
      expect(target).toMatch(/^(#|data:)/);
    expectIn(
      html,
      `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;unsafe-inline&#39;; style-src &#39;unsafe-inline&#39;; img-src data:">`,
    );
    // Leaflet and uPlot are inlined from their npm packages.
    expectIn(html, 'Leaflet 1.9.4');
    expectIn(html, 'uPlot');
  });

  it('escapes every value from the data: row fields holding markup stay text', () => {
    const page = renderRunReport(hostileData());
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toContain('<img');
    expectIn(
      page,
      '&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;',
    );
    expectIn(page, 'Köln &amp; &quot;Umgebung&quot;');
    // The page's own four scripts and nothing else open or close a script element.
    expect(count(page, /<script\b/gi)).toBe(4);
    expect(count(page, /<\/script/gi)).toBe(4);
  });

  /** 26 rows read and written, 25 ok, the last failed as INPUT_MALFORMED, in the error report. */
  const twentySixRows = (s: Mutable<RunSummary>) => {
    s.rows = {
      read: 26,
      written: 26,
      ok: 25,
      failed: 1,
      failedByCode: { INPUT_MALFORMED: 1 },
      unknownKeyRows: 0,
    };
    s.report = { path: 'out/x.errors.csv', format: 'csv', rows: 1, written: true };
  };

  it('never shows an input cut short as a clean end: the rows after the cut were not read', () => {
    // A GeoJSON file cut off mid-feature: 25 features read, the cut one failed as INPUT_MALFORMED.
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.input.truncated = true;
        twentySixRows(s);
      }),
    });
    expectIn(
      page,
      '<p class="ended ended-cut_short" data-ended="complete_with_failures">Input cut short: only the rows up to row 26 were read; exit code 3</p>',
    );
    expectIn(page, '<div class="stop" id="cut-short" data-truncated="true">');
    expectIn(page, 'reading stopped at a syntax error in row 26 (the file cut short, or broken there;');
    expectIn(page, 'Rows after it were not read: they are in no output, no error report and no count');
    expectIn(
      page,
      'Repair the file at that row or fetch it whole again, then run again on it from the start.',
    );
    expect(page).not.toContain('Complete, with failed rows');
    expect(page).not.toContain('✓ Every row is accounted for');
    expect(page).not.toContain('class="accounting balanced"');
    expectIn(
      page,
      '<p class="accounting partial" data-balanced="true" data-whole="false">Every row read is accounted for: read 26 = written 26 = ok 25 + failed 1; failed 1 = in the error report 1. Not the whole input: reading stopped at a syntax error in row 26 (cut short?), and the rows after it were not read.</p>',
    );
    // The same counts from an input read to its end are the green, whole account.
    const whole = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary(twentySixRows),
    });
    expectIn(whole, '✓ Every row is accounted for: read 26 = written 26');
    expect(whole).not.toContain('cut-short');
    // A CSV or NDJSON file that ends inside its last row: nothing was left unread, it is missing.
    const csv = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.input = { ...s.input, format: 'csv', truncated: true };
        twentySixRows(s);
      }),
    });
    expectIn(csv, 'The input ends inside row 26, which is not whole (the file cut short;');
    expectIn(
      csv,
      'Not the whole input: it ends inside row 26 (cut short?), and the rows that followed it are not in the file.',
    );
  });

  it('gives no green tick to a run that stopped or had its output closed with nothing in flight', () => {
    for (const [ended, why] of [
      ['stopped', 'the run stopped, and any rows after row 603 were not read'],
      ['output_closed', 'its reader closed the output, and any rows after row 603 were not read'],
    ] as const) {
      const page = renderRunReport({
        ...goldenBoundaries(),
        summary: sampleSummary((s) => {
          s.ended = ended;
        }),
      });
      expect(page).not.toContain('✓');
      expectIn(
        page,
        `<p class="accounting partial" data-balanced="true" data-whole="false">Every row read is accounted for: read 603 = written 603 = ok 600 + failed 3; failed 3 = in the error report 3. Not the whole input: ${why}.</p>`,
      );
    }
  });

  it('takes the requests/s from the requests the page names, and says what it counts', () => {
    // Boundaries: 40 batches and 17 level requests asked within them, 3 retries, in 10 s.
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.requests = { ...s.requests, http: 60, sent: 40 };
        s.client = { ...s.client, requests: { total: 60, byInterface: { area: { '200': 57, '503': 3 } } } };
        s.timing = { ...s.timing, durationMs: 10_000, requestsPerSecond: 4 };
      }),
    });
    expectIn(page, '57 requests for ');
    expectIn(
      page,
      '<dt>rate</dt><dd>10.1 rows/s, 5.7 requests/s (57 requests in 10 s; requests as counted under Requests, retries and cache answers left out)</dd>',
    );
    // The chart's line is the client's count, retries included: named so, not "requests/s".
    expectIn(page, "{ label: 'HTTP attempts/s',");
    expect(page).not.toContain("label: 'requests/s'");
    expectIn(
      page,
      'HTTP attempts per second (retries and token requests included, so more than the requests counted under Requests',
    );
    // A resumed run's counts add up its sessions: its rate is this session's, and says so.
    const resumed = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.resume = { ...s.resume, resumed: true };
      }),
    });
    expectIn(
      resumed,
      '<dt>rate</dt><dd>10.1 rows/s, 0.1 requests/s (this session; requests as counted under Requests, retries and cache answers left out)</dd>',
    );
  });

  it('does not call a run with a warning (points swapped, values left out) a plain green "every row ok"', () => {
    const clean = (warnings: RunSummary['warnings']) =>
      renderRunReport({
        ...goldenBoundaries(),
        summary: sampleSummary((s) => {
          s.ended = 'complete';
          s.exitCode = 0;
          s.rows = { read: 3, written: 3, ok: 3, failed: 0, failedByCode: {}, unknownKeyRows: 0 };
          s.report = null;
          if (warnings !== undefined) s.warnings = [...warnings];
        }),
      });
    const page = clean([
      {
        kind: 'coordinates-swapped',
        message: 'longitude and latitude look swapped: 3 of 3 rows read a point that lies outside Europe',
        rows: 3,
        rowsRead: 3,
        exampleRow: 1,
      },
    ]);
    expectIn(
      page,
      '<p class="ended ended-complete_with_warnings" data-ended="complete">Complete with a warning: every row ok as the service answered it, but see the warning below; exit code 0</p>',
    );
    expect(page).not.toContain('Complete: every row ok');
    // Values the CSV output could not hold are lost from it: a warning too, not a clean run.
    const unknown = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.ended = 'complete';
        s.exitCode = 0;
        s.rows = { read: 3, written: 3, ok: 3, failed: 0, failedByCode: {}, unknownKeyRows: 2 };
        s.report = null;
      }),
    });
    expectIn(unknown, 'class="ended ended-complete_with_warnings"');
    expectIn(
      unknown,
      '<li data-kind="unknown-keys">warning: 2 rows had keys that are not among the output&#39;s columns (taken from the first row): their values are left out of the CSV or GeoPackage output</li>',
    );
    expectIn(
      clean(undefined),
      '<p class="ended ended-complete" data-ended="complete">Complete: every row ok; exit code 0</p>',
    );
  });

  it('says why a stopped run stopped, with the hint and what to do', () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.ended = 'stopped';
        s.exitCode = 1;
        s.error = { code: 'QUOTA_EXCEEDED', message: 'quota exceeded (402) for area', hint: 'Buy more.' };
        s.rows.written = 400;
        s.rows.ok = 398;
        s.rows.failed = 2;
        s.rows.failedByCode = { OUTSIDE_COVERAGE: 2 };
        s.report = { path: 'x.errors.csv', format: 'csv', rows: 2, written: false };
        s.resume.checkpoint = 'out/places.boundaries.geojson.checkpoint.json';
      }),
    });
    expectIn(page, '<p class="ended ended-stopped" data-ended="stopped">Stopped; exit code 1</p>');
    expectIn(
      page,
      '<code>QUOTA_EXCEEDED</code> quota exceeded (402) for area</p><p class="hint">Buy more.</p>',
    );
    expectIn(page, escWithCode(ERROR_ADVICE.QUOTA_EXCEEDED));
    expectIn(page, '<dt>checkpoint</dt><dd>out/places.boundaries.geojson.checkpoint.json</dd>');
    // The files it did not put in place say so, not just their counts.
    expectIn(
      page,
      '<dt>error report</dt><dd>x.errors.csv (csv, 2 rows): not written yet, the records so far are in its .partial, kept for --resume</dd>',
    );
    const gone = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.ended = 'stopped';
        s.outputs = [{ path: 'out/a.csv', format: 'csv', records: 612, written: false }];
      }),
    });
    expectIn(
      gone,
      '<dt>output</dt><dd>out/a.csv (csv, 612 records): not written, the run stopped first</dd>',
    );
  });

  it('counts the rows a stopped run had in flight apart: they balance the accounting, redone by --resume', () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: stoppedByCtrlC(),
    });
    expectIn(page, 'data-balanced="true" data-in-flight="16"');
    expectIn(
      page,
      'read 146: written 130 (ok 129 + failed 1), 16 in flight when the run stopped, redone by --resume; failed 1 = in the error report 1.',
    );
    expect(page).not.toContain('data-balanced="false"');
    expect(page).not.toContain('read 146 = written');
    // The shares are of the rows written, which ok and failed add up to, not of those read.
    expectIn(page, '<span class="label">ok</span><span class="share">99.2%</span>');

    const fresh = renderRunReport({
      ...goldenBoundaries(),
      summary: stoppedByCtrlC((s) => {
        s.resume.checkpoint = null;
      }),
    });
    expectIn(
      fresh,
      '16 in flight when the run stopped (no checkpoint is kept: a new run starts from the first row)',
    );
    expect(fresh).not.toContain('redone by --resume');
  });

  it('tells a stopped run to resume once, not in both the hint and the advice', () => {
    const page = renderRunReport({ ...goldenBoundaries(), summary: stoppedByCtrlC() });
    const stop = page.match(/<div class="stop" id="stop">(.*?)<\/div>/s)?.[1] ?? '';
    expect(stop).toBe(
      '<p><code>ABORTED</code> The run was interrupted</p><p class="hint">Run again with --resume to continue from the checkpoint.</p>',
    );
    expect(count(page, /run again with (<code>)?--resume/gi)).toBe(1);
  });

  it('tells a stop that kept no checkpoint to run again without --resume, and its hint once', () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.ended = 'stopped';
        s.exitCode = 1;
        s.error = {
          code: 'AUTH_REJECTED',
          message: 'the service rejected the API key (401) for geocoding: check GEOBATCH_API_KEY',
          hint: 'check GEOBATCH_API_KEY',
        };
        s.resume.checkpoint = null;
      }),
    });
    const stop = page.match(/<div class="stop" id="stop">(.*?)<\/div>/s)?.[1] ?? '';
    expect(stop).toContain('then run again (without <code>--resume</code>: no checkpoint was kept).');
    expect(stop).not.toContain('class="hint"');
    expect(count(stop, /check <code>GEOBATCH_API_KEY<\/code>|check GEOBATCH_API_KEY/g)).toBe(2);
    expect(stop).not.toMatch(/with <code>--resume/);
  });

  it('flags counts that truly disagree in red, saying which relation fails', () => {
    const finished = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.rows.written = 600;
        s.rows.ok = 597;
      }),
    });
    expectIn(
      finished,
      '<p class="accounting unbalanced" data-balanced="false">The counts do not balance: read 603 ≠ written 600 = ok 597 + failed 3; failed 3 = in the error report 3.</p>',
    );
    const stopped = renderRunReport({
      ...goldenBoundaries(),
      summary: stoppedByCtrlC((s) => {
        s.rows.ok = 120;
      }),
    });
    expectIn(
      stopped,
      'data-balanced="false">The counts do not balance: read 146: written 130 ≠ ok 120 + failed 1, 16 in flight',
    );
  });

  it('says how many items the cache answered and how many requests that saved', () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      cache: { hits: 1321, misses: 6 },
      summary: sampleSummary((s) => {
        s.cache = {
          store: 'sqlite',
          location: 'cache.sqlite',
          mode: 'use',
          hits: 1321,
          misses: 6,
          expired: 0,
          writes: 6,
          requestsSaved: 774,
          problem: null,
          uncached: [],
        };
      }),
    });
    expectIn(
      page,
      '<tr data-saved="cache"><td>cache</td><td class="n">1,321</td><td class="n">52.4%</td><td>items answered wholly from the request cache; it answered 774 requests instead of the service</td></tr>',
    );
    expect(page).not.toContain('requests answered from the request cache');
    expect(page).not.toContain('data-cache-problem');
  });

  it('shows why the run went on without the cache, where the savings are', () => {
    const problem =
      'cache.sqlite is damaged (SQLite: database disk image is malformed): this run goes on without it';
    const page = renderRunReport({
      ...goldenBoundaries(),
      cache: { hits: 12, misses: 300 },
      summary: sampleSummary((s) => {
        s.cache = {
          store: 'sqlite',
          location: 'cache.sqlite',
          mode: 'use',
          hits: 12,
          misses: 300,
          expired: 0,
          writes: 0,
          requestsSaved: 12,
          problem,
          uncached: [],
        };
      }),
    });
    expectIn(page, `<div class="stop" data-cache-problem><p>Request cache: ${problem}</p></div>`);
  });

  it('shows each step of a run of several: rows reached, ok, failed there, requests and savings', () => {
    expect(html).not.toContain('id="steps"');
    const page = renderRunReport({ ...goldenBoundaries(), summary: withSteps() });
    expectIn(page, '<section id="steps"><h2>Steps</h2>');
    expectIn(
      page,
      '<tr data-step="geocode"><td>geocode</td><td class="n">405</td><td class="n">402</td><td class="n">3 (0.7%)</td><td class="n">404</td><td class="n">401</td><td class="n">401</td><td class="n">0</td><td class="n">2</td><td class="n">0</td></tr>',
    );
    // What the step cost, its HTTP requests, beside its batches: boundaries asks once per level.
    expectIn(
      page,
      '<tr data-step="boundaries"><td>boundaries</td><td class="n">402</td><td class="n">402</td><td class="n">0</td><td class="n">6</td><td class="n">3</td><td class="n">238</td><td class="n">235</td><td class="n">22</td><td class="n">142</td></tr>',
    );
    expectIn(page, '<th class="n">HTTP requests</th><th class="n">batches sent</th>');
    expectIn(page, '411 in all, the run&#39;s HTTP requests');
  });

  it("says a summary of an earlier version has no step's HTTP requests, rather than a number", () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: withSteps((s) => {
        s.steps = s.steps?.map(({ requests: { http: _, ...requests }, ...step }) => ({ ...step, requests }));
      }),
    });
    expectIn(
      page,
      '<tr data-step="boundaries"><td>boundaries</td><td class="n">402</td><td class="n">402</td><td class="n">0</td><td class="n">–</td><td class="n">3</td>',
    );
    expectIn(page, 'HTTP requests per step were not counted by the geobatch that wrote this summary.');
  });

  it('names the step each example failed at when the run has steps', () => {
    const failures = createFailureExamples();
    failures.add({
      ...issueOf({
        row: 211,
        line: 212,
        stage: 'response',
        code: 'NO_MATCH',
        status: null,
        message: 'no match: Die Adresse wurde nicht gefunden.',
        fields: { street: 'Nirgendweg' },
      }),
      step: 'geocode',
    });
    const data = {
      ...goldenBoundaries(),
      failures: failures.examples(),
      summary: withSteps((s) => {
        s.rows.failedByCode = { NO_MATCH: 1 };
      }),
    };
    const page = renderRunReport(data);
    expectIn(page, '<th class="n">line</th><th>step</th><th>stage</th>');
    expectIn(page, '<td class="n">212</td><td class="step">geocode</td><td>response</td>');
    const oneJob = renderRunReport({ ...data, summary: sampleSummary() });
    expect(oneJob).not.toContain('<th>step</th>');
  });

  it('writes one row, one record, one request in the singular', () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.outputs = [{ path: 'out/one.csv', format: 'csv', records: 1, written: true }];
        s.report = { path: 'out/one.errors.csv', format: 'csv', rows: 1, written: true };
        s.rows.failedByCode = { OUTSIDE_COVERAGE: 1 };
        s.requests.sent = 1;
        // One request, tried again 3 times (the sample client's retries).
        s.requests.http = 4;
      }),
      map: { features: [], withGeometry: { ok: 0, failed: 0 }, withoutGeometry: { ok: 0, failed: 1 } },
    });
    expectIn(page, '<dd>out/one.csv (csv, 1 record)</dd>');
    expectIn(page, '<dd>out/one.errors.csv (csv, 1 row)</dd>');
    expectIn(page, '<code>OUTSIDE_COVERAGE</code>: 1 row</h3>');
    expectIn(page, '<p class="lead">1 request for ');
    expectIn(page, 'Without a geometry, so not on the map: 1 failed record.');
    // Rates (`0.1 requests/s`) are units, not counts.
    expect(page).not.toMatch(/(?<![\d.,])1 (rows|records|requests|items)\b/);
  });

  it('says how many records had coordinates that are not degrees, left off the map', () => {
    const page = renderRunReport({
      ...goldenBoundaries(),
      map: {
        features: [],
        withGeometry: { ok: 0, failed: 0 },
        withoutGeometry: { ok: 0, failed: 0 },
        offTheGlobe: { ok: 0, failed: 1 },
      },
    });
    expectIn(
      page,
      'With coordinates that are not longitude and latitude (metres of a projection?), so not on the map: 1 failed record.',
    );
  });

  it('draws no chart of a run too short for one, and says why', () => {
    const short = (timeline: RunReportData['timeline']) =>
      renderRunReport({ ...goldenBoundaries(), timeline }).match(
        /<div id="gb-chart"[^>]*>(.*?)<\/div>/s,
      )?.[0];
    const zero = { rows: 0, failed: 0, requests: 0, throttled: 0 };
    expect(short([{ t: 0, ...zero }])).toBe(
      '<div id="gb-chart" class="chart" data-points="1" data-chart="none"><p class="note">The run was too short for a chart: fewer than two samples of its counters.</p></div>',
    );
    expect(
      short([
        { t: 0, ...zero },
        { t: 340, rows: 603, failed: 3, requests: 6, throttled: 0 },
      ]),
    ).toBe(
      '<div id="gb-chart" class="chart" data-points="2" data-chart="none"><p class="note">The run was too short for a chart: its counters were sampled over 0.3 s, which gives a single rate, not a line (a chart needs a run longer than a second).</p></div>',
    );
    expect(
      short([
        { t: 0, ...zero },
        { t: 1000, rows: 400, failed: 2, requests: 4, throttled: 0 },
        { t: 1500, rows: 603, failed: 3, requests: 6, throttled: 0 },
      ]),
    ).toBe('<div id="gb-chart" class="chart" data-points="3"></div>');
    expect(short(sampleTimeline())).toBe('<div id="gb-chart" class="chart" data-points="61"></div>');
  });

  it('says so when no row failed, and when a resumed run has no example of a code', () => {
    const clean = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.ended = 'complete';
        s.rows.failed = 0;
        s.rows.ok = 603;
        s.rows.failedByCode = {};
        s.report = { path: 'x.errors.csv', format: 'csv', rows: 0, written: false };
      }),
    });
    expectIn(clean, '<h2>Failures</h2><p>No row failed.</p>');
    // A stopped run's later rows were not read: "no row failed" would speak for them too.
    const stopped = renderRunReport({
      ...goldenBoundaries(),
      summary: stoppedByCtrlC((s) => {
        s.rows = { ...s.rows, ok: 130, failed: 0, failedByCode: {} };
        s.report = null;
      }),
    });
    expectIn(
      stopped,
      '<h2>Failures</h2><p>No row of the 130 written failed; the run stopped, and any rows after them were not finished or not read.</p>',
    );
    // Failed rows are never hidden, even when the summary gives no code for them.
    const uncoded = renderRunReport({
      ...goldenBoundaries(),
      summary: sampleSummary((s) => {
        s.rows.failedByCode = {};
      }),
    });
    expectIn(
      uncoded,
      '<h2>Failures</h2><p>3 rows failed, without a code in the summary: the error report lists them.</p>',
    );
    expect(uncoded).not.toContain('No row failed');
    const resumed = renderRunReport({
      ...goldenBoundaries(),
      failures: [],
      summary: sampleSummary((s) => {
        s.resume.resumed = true;
        s.resume.fromRow = 300;
      }),
    });
    expect(
      count(
        resumed,
        /No example from this session: this row failed before the run was resumed\. The error report lists it\./g,
      ),
    ).toBe(3);
    expectIn(resumed, '<dt>resumed</dt><dd>from row 301</dd>');
  });

  it('stays a few MB for a large output of detailed polygons', () => {
    const sample = createFeatureSample();
    for (let i = 0; i < 8000; i++)
      sample.add(polygon(i, 200), i % 7 ? 'ok' : 'failed', i + 1, i % 7 ? null : 'NO_MATCH');
    const map = sample.result();
    expect(map.features.length).toBeGreaterThan(4000);
    expect(map.features.length).toBeLessThanOrEqual(5000);
    const page = renderRunReport({ ...goldenBoundaries(), map });
    expect(page.length).toBeLessThan(4_000_000);
    const embedded = dataOf(page).map.features.features as { geometry: { type: string } }[];
    expect(embedded).toHaveLength(map.features.length);
    expect(embedded.every((f) => f.geometry.type === 'Polygon')).toBe(true);
  });
});

/** A run stopped by Ctrl-C after 146 rows read and 130 written, its checkpoint kept. */
function stoppedByCtrlC(change: Parameters<typeof sampleSummary>[0] = () => {}) {
  return sampleSummary((s) => {
    s.ended = 'stopped';
    s.exitCode = 1;
    s.error = {
      code: 'ABORTED',
      message: 'The run was interrupted',
      hint: 'Run again with --resume to continue from the checkpoint.',
    };
    s.rows = {
      read: 146,
      written: 130,
      ok: 129,
      failed: 1,
      failedByCode: { OUTSIDE_COVERAGE: 1 },
      unknownKeyRows: 0,
    };
    s.report = { path: 'out/x.errors.csv', format: 'csv', rows: 1, written: false };
    s.resume.checkpoint = 'out/x.csv.checkpoint.json';
    change(s);
  });
}

/** The enrich-addresses sample's three steps, as its summary has them. */
function withSteps(change: Parameters<typeof sampleSummary>[0] = () => {}) {
  return sampleSummary((s) => {
    s.job = 'geocode+boundaries+elevation';
    s.requests = { ...s.requests, http: 411 };
    s.steps = [
      {
        name: 'geocode',
        rows: { reached: 405, ok: 402, failed: 3 },
        requests: {
          http: 404,
          sent: 401,
          itemsSent: 401,
          savedByDedup: 2,
          savedByBatching: 0,
          savedByLocalAnswers: 0,
        },
      },
      {
        name: 'boundaries',
        rows: { reached: 402, ok: 402, failed: 0 },
        requests: {
          http: 6,
          sent: 3,
          itemsSent: 238,
          savedByDedup: 22,
          savedByBatching: 235,
          savedByLocalAnswers: 142,
        },
      },
      {
        name: 'elevation',
        rows: { reached: 402, ok: 402, failed: 0 },
        requests: {
          http: 1,
          sent: 1,
          itemsSent: 371,
          savedByDedup: 31,
          savedByBatching: 370,
          savedByLocalAnswers: 0,
        },
      },
    ];
    change(s);
  });
}

/** A wobbly ring of `n` vertices, one of a grid over Germany. */
function polygon(i: number, n: number): Polygon {
  const ring: Position[] = Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * k) / n;
    const r = 0.02 * (1 + 0.1 * Math.sin(13 * a));
    return [6 + (i % 90) * 0.1 + r * Math.cos(a), 47.5 + (Math.floor(i / 90) % 70) * 0.1 + r * Math.sin(a)];
  });
  return { type: 'Polygon', coordinates: [[...ring, ring[0] as Position]] };
}
