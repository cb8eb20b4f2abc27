/** The page's own stylesheet (Leaflet's and uPlot's are inlined beside it). */
export const PAGE_STYLE = `
:root { color-scheme: light; --ok: #2563eb; --failed: #dc2626; --muted: #6b7280; --line: #e5e7eb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; background: #f9fafb; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 20px 48px; }
header h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 17px; margin: 0 0 12px; }
h3 { font-size: 14px; margin: 18px 0 8px; }
section, header { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 18px; margin: 0 0 16px; }
.ended { display: inline-block; font-weight: 600; padding: 2px 10px; border-radius: 999px; margin: 0 0 10px; }
.ended-complete { background: #dcfce7; color: #166534; }
.ended-complete_with_failures, .ended-complete_with_warnings { background: #fef3c7; color: #92400e; }
.ended-stopped, .ended-cut_short { background: #fee2e2; color: #991b1b; }
.warnings { background: #fef3c7; color: #92400e; padding: .4em 1.6em; border-radius: 4px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.stop { border-left: 4px solid var(--failed); background: #fef2f2; padding: 8px 12px; margin: 0 0 12px; }
.stop p { margin: 4px 0; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; }
.card { flex: 1 1 130px; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; display: flex; flex-direction: column; }
.card .value { font-size: 22px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .label, .card .share { color: var(--muted); }
.card-ok .value { color: #166534; }
.card-failed .value { color: var(--failed); }
.accounting { margin: 12px 0 0; }
.accounting.balanced { color: #166534; }
.accounting.unbalanced { color: #991b1b; }
.accounting.partial { color: #92400e; }
table { border-collapse: collapse; width: 100%; margin: 4px 0; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: #374151; background: #f3f4f6; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f3f4f6; padding: 0 3px; border-radius: 3px; }
.fields { font-size: 12.5px; }
.field { display: inline-block; margin: 0 8px 2px 0; }
.field .k { color: var(--muted); }
.note { color: var(--muted); margin: 6px 0; }
.chart { min-height: 60px; }
.map { height: 520px; border: 1px solid var(--line); border-radius: 6px; }
.leaflet-container { background: #dbe4ea; font: inherit; }
.legend { margin: 8px 0 0; }
.gb-outside { background: #fff; padding: 4px 8px; font-size: 12.5px; }
.gb-outside a { display: inline; width: auto; height: auto; line-height: inherit; border: 0; text-decoration: underline; color: #1d4ed8; }
.dot { display: inline-block; width: 11px; height: 11px; border-radius: 50%; vertical-align: -1px; margin: 0 2px 0 8px; }
.dot.ok { background: #3b82f6; border: 1px solid #1d4ed8; }
.dot.failed { background: #ef4444; border: 2px solid #991b1b; }
footer { color: var(--muted); font-size: 12.5px; padding: 0 4px; }
`;
