/**
 * The report's and the web view's stylesheet, inlined into every page (a report opens without network). Colours meet
 * WCAG AA contrast on their backgrounds; print shows everything expanded, without the controls.
 */
export const STYLES = `
:root{--fg:#1b1f24;--muted:#4d5661;--bg:#fff;--line:#d0d7de;--band:#f6f8fa;--accent:#0b5cad;--bar:#3b6fb6;--err:#a40e26;--warn:#7a4b00;--ok:#116329}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0}
header.page,main{max-width:1200px;margin:0 auto;padding:12px 20px}
header.page{border-bottom:1px solid var(--line)}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:20px 0 8px}h3{font-size:15px;margin:16px 0 6px}
a{color:var(--accent)}
a:focus-visible,summary:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #ffbf47;outline-offset:1px}
table{border-collapse:collapse;margin:6px 0 12px;width:100%}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
th{background:var(--band)}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.muted{color:var(--muted)}.error{color:var(--err)}.warn{color:var(--warn)}
.controls{display:flex;gap:8px;margin:8px 0}
button{font:inherit;padding:3px 10px;border:1px solid var(--muted);background:var(--band);color:var(--fg);border-radius:4px;cursor:pointer}
ul.tree,ul.tree ul{list-style:none;margin:0;padding:0}
ul.tree ul{padding-left:16px;border-left:1px dotted var(--line)}
.row{display:grid;grid-template-columns:minmax(260px,2fr) 90px minmax(200px,3fr);gap:8px;align-items:center;padding:1px 0}
li.node{content-visibility:auto;contain-intrinsic-size:auto 24px}
summary{cursor:pointer;list-style:none}summary::-webkit-details-marker{display:none}
summary .row::before{content:"▸";position:absolute;margin-left:-12px;color:var(--muted)}
details[open]>summary .row::before{content:"▾"}
.leaf .row{padding-left:0}
.what{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.lvl{display:inline-block;min-width:64px;font-size:11px;font-weight:600;color:var(--muted);text-transform:uppercase}
.dur{text-align:right;font-variant-numeric:tabular-nums}
.track{position:relative;height:12px;background:var(--band);border:1px solid var(--line)}
.bar{position:absolute;top:0;bottom:0;left:var(--l);width:max(2px,var(--w));background:var(--bar)}
.status-error>details>summary .bar,.leaf.status-error .bar{background:var(--err)}
.chips{font-size:12px;color:var(--muted);grid-column:1/-1;padding-left:72px}
.detail{margin:0 0 4px 72px;font-size:13px}.detail ul{margin:2px 0;padding-left:16px}
details.metrics>summary{color:var(--accent);font-size:12px}details.metrics>summary::before{content:"+ "}details.metrics[open]>summary::before{content:"− "}
.status-error>details>summary .what,.leaf.status-error .what{color:var(--err)}
.session{border-top:2px solid var(--line);margin-top:16px}
form.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:10px 0}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
input,select{font:inherit;padding:2px 4px;border:1px solid var(--muted);border-radius:3px;color:var(--fg);background:var(--bg)}
svg.chart{max-width:100%;height:auto;border:1px solid var(--line);background:var(--bg)}
svg.chart .axis{stroke:var(--muted);stroke-width:1}svg.chart .line{fill:none;stroke:var(--bar);stroke-width:2}
svg.chart text{font-size:11px;fill:var(--muted)}svg.chart circle{fill:var(--bar)}
@media print{.controls,form.filters,nav{display:none}li.node{content-visibility:visible}a{color:inherit}body{font-size:11px}.track{border-color:#888}.bar{background:#333!important;print-color-adjust:exact;-webkit-print-color-adjust:exact}}
`;
