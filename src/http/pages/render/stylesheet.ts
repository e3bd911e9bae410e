import { createHash } from 'node:crypto';

/**
 * The one stylesheet of every public page. Light and dark follow the reader's
 * `prefers-color-scheme`; a status always has a word and a shape beside its
 * colour; laid out for a 360 px phone first (where
 * the bars show their last 30 days, each cell wide enough to see and touch).
 */
export const STYLESHEET = `
:root{--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;--ok:#1a7f37;--minor:#9a6700;--major:#cf222e;--maint:#0969da;--none:#d0d7de;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;--ok:#3fb950;--minor:#d29922;--major:#f85149;--maint:#4493f8;--none:#3d444d;--link:#4493f8}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
a{color:var(--link)}
a:focus-visible,[tabindex]:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--link);outline-offset:2px}
header.site,footer.site,main{max-width:52rem;margin:0 auto;padding:0 1rem}
header.site{padding-top:1rem;padding-bottom:.5rem;border-bottom:1px solid var(--line)}
header.site .home{font-weight:700;font-size:1.25rem;text-decoration:none;color:var(--fg)}
footer.site{color:var(--muted);font-size:.875rem;border-top:1px solid var(--line);margin-top:2rem}
h1{font-size:1.5rem;margin:1rem 0 .5rem}
h2{font-size:1.2rem;margin:1.75rem 0 .5rem}
h3,h4{font-size:1rem;margin:0}
.group>h3{margin:1rem 0 .25rem}
.muted,time{color:var(--muted)}
.skip{position:absolute;left:.5rem;top:-4rem;z-index:10;padding:.5rem 1rem;background:var(--bg);color:var(--link);border:2px solid var(--link);border-radius:.375rem;font-weight:600}
.skip:focus{top:.5rem}
main:focus{outline:none}
.banner{display:flex;gap:.75rem;align-items:center;justify-content:space-between;flex-wrap:wrap;padding:1rem;border-radius:.5rem;margin:1rem 0;font-weight:600;background:var(--muted);color:var(--bg)}
.banner p{margin:0}
.banner a{color:inherit;text-underline-offset:.2em}
.banner a:focus-visible{outline-color:currentColor}
.banner.ok{background:var(--ok)}.banner.minor{background:var(--minor)}.banner.major,.banner.partial{background:var(--major)}.banner.maintenance{background:var(--maint)}
.status{display:inline-flex;align-items:center;gap:.35rem;font-weight:600;white-space:nowrap}
.status::before{content:"";display:inline-block;width:.8em;height:.8em;background:currentColor}
.status.ok{color:var(--ok)}.status.ok::before{border-radius:50%}
.status.minor{color:var(--minor)}.status.minor::before{clip-path:polygon(50% 0,100% 100%,0 100%)}
.status.major{color:var(--major)}.status.major::before{transform:rotate(45deg);width:.7em;height:.7em}
.status.maintenance{color:var(--maint)}.status.maintenance::before{border-radius:2px;width:.9em;height:.45em}
.status.unknown{color:var(--muted)}
.status.unknown::before{border-radius:50%;background:none;border:2px solid currentColor;width:.55em;height:.55em}
/* After the colours of .status and time: on a filled banner they take the banner's text colour, never its fill. */
.banner .status{color:inherit;white-space:normal}.banner time{color:inherit}
.banner-block{margin:1rem 0}.banner-block .banner{margin:0}.banner-note{margin:.4rem 0 0 .25rem}
ul.plain{list-style:none;margin:0;padding:0}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;margin:.5rem 0}
.row{display:flex;justify-content:space-between;align-items:baseline;gap:.5rem;flex-wrap:wrap}
ol.days{display:grid;grid-template-columns:repeat(90,1fr);gap:1px;list-style:none;margin:.5rem 0 .25rem;padding:0;height:2rem}
ol.days li{position:relative;background:var(--none);border-radius:1px;min-width:0}
ol.days .o{background:var(--ok)}ol.days .n{background:var(--minor)}ol.days .j{background:var(--major)}ol.days .m{background:var(--maint)}
ol.days p{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;bottom:2.4rem;left:50%;transform:translateX(-50%)}
ol.days li:hover p,ol.days li:focus p{clip:auto;width:14rem;max-width:80vw;height:auto;margin:0;overflow:visible;white-space:normal;z-index:2;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:.375rem;padding:.5rem;font-size:.8rem;box-shadow:0 2px 8px rgba(0,0,0,.2)}
ol.days li:nth-child(-n+30) p{left:0;transform:none}
ol.days li:nth-last-child(-n+30) p{left:auto;right:0;transform:none}
.bar-legend{display:flex;justify-content:space-between;font-size:.75rem;color:var(--muted)}
.bar-legend .narrow{display:none}
@media (max-width:40rem){
ol.days{grid-template-columns:repeat(30,1fr)}
ol.days li:nth-last-child(n+31){display:none}
.bar-legend .wide{display:none}.bar-legend .narrow{display:inline}
ol.days li:nth-last-child(n+21) p{left:0;right:auto;transform:none}
ol.days li:nth-last-child(-n+20):nth-last-child(n+11) p{left:50%;right:auto;transform:translateX(-50%)}
}
.timeline{list-style:none;margin:.5rem 0 0;padding:0 0 0 1rem;border-left:2px solid var(--line)}
.timeline li{margin:0 0 .75rem}
.stage{font-weight:600;text-transform:capitalize}
.components{font-size:.875rem;color:var(--muted)}
form.subscribe{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
form.subscribe label{display:flex;flex-direction:column;font-size:.875rem;flex:1 1 14rem}
form.subscribe fieldset{flex-basis:100%;border:1px solid var(--line);border-radius:.375rem}
form.subscribe fieldset label{flex-direction:row;gap:.4rem;align-items:center;display:inline-flex;margin-right:1rem}
input[type=email]{font:inherit;padding:.5rem;border:1px solid var(--line);border-radius:.375rem;background:var(--bg);color:var(--fg);min-height:2.75rem}
button{font:inherit;font-weight:600;padding:.5rem 1rem;border-radius:.375rem;border:1px solid var(--link);background:var(--link);color:var(--bg);min-height:2.75rem;cursor:pointer}
.feeds{font-size:.875rem}
.feeds a{margin-right:1rem}
svg.chart{width:100%;height:auto;display:block}
svg.chart .axis{stroke:var(--line)}
svg.chart .line{stroke:var(--link);fill:none;stroke-width:1.5}
svg.chart .fail{fill:var(--major)}
svg.chart text{fill:var(--muted);font-size:10px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid var(--line)}
.pager{display:flex;justify-content:space-between;margin:1rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
pre{background:var(--card);border:1px solid var(--line);border-radius:.375rem;padding:.5rem .75rem;white-space:pre-wrap}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
ol.days.probes li.n,ol.days.probes li.j{align-self:end}ol.days.probes li.n{height:70%}ol.days.probes li.j{height:40%}
figure.rt{margin:.75rem 0 0}figure.rt figcaption{font-size:.875rem;color:var(--muted)}
svg.chart.rt text{font-size:12px}
@media (max-width:30rem){svg.chart.rt text{font-size:18px}}
.monitor .legend{font-size:.75rem;margin:.25rem 0 0}
ul.regions{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.875rem;font-variant-numeric:tabular-nums}
ul.regions a[aria-current]{font-weight:700;text-decoration:none}
nav.choice{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:baseline;font-size:.875rem}
table.hours{font-variant-numeric:tabular-nums}table.hours th,table.hours td{padding:.25rem .3rem}table.hours th,table.hours td:first-child{white-space:nowrap}
@media (max-width:30rem){table.hours{font-size:.8125rem}}
`.trim();

/** Where the stylesheet is served; the query changes with its content, so it may be cached for long. */
export const STYLESHEET_PATH = `/assets/statusbot.css?v=${createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12)}`;
