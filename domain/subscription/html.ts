// The subscription info page a person opens on a phone: name, state, used/remaining traffic, expiry, online
// state, each link with a copy button and a server-side QR code, and the subscription URLs. One self-contained
// document: inline CSS, one inline script (allowed by its SHA-256 in the CSP, so the page is a function of the
// data alone and the Node server and the Worker answer the same bytes), inline SVG; no external assets.
// Everything that comes from records or settings is escaped.
import type { SubscriptionSummary } from './summary.js';
import { qrSvg } from './qr.js';
import { base64 } from '../shared/random.js';

export interface PageLink {
  name: string;
  url: string;
}
export interface PageModel {
  title: string;
  summary: SubscriptionSummary;
  nowMs: number;
  timeZone: string;
  /** Seconds: a client seen within this window counts as online. */
  onlineWindowSec: number;
  links: PageLink[];
  /** Subscription URLs (base64 feed, JSON, Clash) that are enabled. */
  urls: PageLink[];
  supportUrl: string;
  announce: string;
}

const ESC: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};
export const esc = (s: string): string => s.replace(/[&<>"'`]/g, (c) => ESC[c]!);

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0 B';
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v.toFixed(0) : v.toFixed(2)} ${units[i]}`;
}

function formatDate(ms: number, timeZone: string): string {
  const opts: Intl.DateTimeFormatOptions = {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  };
  try {
    return new Intl.DateTimeFormat('en-GB', { ...opts, timeZone }).format(ms);
  } catch {
    return new Intl.DateTimeFormat('en-GB', { ...opts, timeZone: 'UTC' }).format(ms);
  }
}

function relative(deltaMs: number): string {
  const abs = Math.abs(deltaMs);
  const d = Math.floor(abs / 86_400_000);
  const h = Math.floor((abs % 86_400_000) / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const text = d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
  return deltaMs >= 0 ? `in ${text}` : `${text} ago`;
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f1f4f8;color:#1b2330}
main{max-width:760px;margin:0 auto;padding:16px}
header{display:flex;flex-wrap:wrap;align-items:center;gap:8px 12px;margin:8px 0 16px}
h1{font-size:1.35rem;margin:0;word-break:break-word}
h2{font-size:1.05rem;margin:0 0 10px}
.badge{display:inline-block;padding:2px 10px;border-radius:999px;font-size:.8rem;font-weight:600}
.ok{background:#dcf5e3;color:#146c2e}.off{background:#fde2e1;color:#a1221b}.idle{background:#e7eaf0;color:#4a5568}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(20,30,50,.08);padding:16px;margin-bottom:14px}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:10px}
.stat{background:#f7f9fc;border-radius:8px;padding:10px}
.stat b{display:block;font-size:1.05rem}
.stat span{font-size:.78rem;color:#5a6678;text-transform:uppercase;letter-spacing:.03em}
.bar{height:8px;background:#e7eaf0;border-radius:4px;overflow:hidden;margin-top:12px}
.bar i{display:block;height:100%;background:#3b82f6}
.link{border-top:1px solid #eef1f5;padding:14px 0;display:grid;grid-template-columns:1fr;gap:10px}
.link:first-of-type{border-top:0;padding-top:0}
.link h3{font-size:.95rem;margin:0;word-break:break-all}
.qr{width:232px;height:232px;max-width:100%;justify-self:center;border:1px solid #e7eaf0;border-radius:6px}
.url{display:flex;gap:8px;align-items:flex-start}
.url code{flex:1;min-width:0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f7f9fc;border-radius:6px;padding:8px;overflow-wrap:anywhere;max-height:6.5em;overflow:auto}
button{font:inherit;font-size:.85rem;border:0;border-radius:6px;background:#2563eb;color:#fff;padding:6px 12px;cursor:pointer;white-space:nowrap}
button:active{background:#1d4ed8}
.notice{background:#fff7e0;border-left:4px solid #e0a800}
footer{font-size:.8rem;color:#5a6678;text-align:center;margin:18px 0}
a{color:#2563eb}
@media (min-width:640px){.link{grid-template-columns:232px 1fr;align-items:start}.link .qr{grid-row:1/span 2;grid-column:1}}
@media (prefers-color-scheme:dark){body{background:#10151d;color:#e3e8ef}.card{background:#18202b;box-shadow:none}.stat,.url code{background:#222c3a}.link{border-color:#263142}.stat span,footer{color:#9aa7b8}.bar{background:#263142}.notice{background:#2b2614}}
`;

const SCRIPT = `document.addEventListener('click',function(e){var b=e.target.closest('button[data-copy]');if(!b)return;var t=b.getAttribute('data-copy');var done=function(){var o=b.textContent;b.textContent='Copied';setTimeout(function(){b.textContent=o},1500)};if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done,function(){fallback(t);done()})}else{fallback(t);done()}});function fallback(t){var a=document.createElement('textarea');a.value=t;a.setAttribute('readonly','');a.style.position='fixed';a.style.opacity='0';document.body.appendChild(a);a.select();try{document.execCommand('copy')}catch(_){}document.body.removeChild(a)}`;

let scriptSource = '';
/** The CSP source allowing the page's inline script ('sha256-…'), computed once with WebCrypto. */
export async function pageScriptSource(): Promise<string> {
  if (!scriptSource) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(SCRIPT));
    scriptSource = `'sha256-${base64(new Uint8Array(digest))}'`;
  }
  return scriptSource;
}

export function renderPage(m: PageModel): string {
  const s = m.summary;
  const used = s.up + s.down;
  const now = m.nowMs;
  const online = s.lastOnline > 0 && now / 1000 - s.lastOnline <= m.onlineWindowSec;
  const state = s.depleted ? ['off', 'Depleted'] : s.enabled ? ['ok', 'Active'] : ['off', 'Disabled'];
  const onlineBadge = online
    ? '<span class="badge ok" data-testid="online">Online</span>'
    : '<span class="badge idle" data-testid="online">Offline</span>';
  const remaining = s.total > 0 ? formatBytes(Math.max(0, s.total - used)) : '∞';
  const pct = s.total > 0 ? Math.min(100, Math.round((used / s.total) * 100)) : 0;
  const expiry =
    s.expire > 0
      ? `${esc(formatDate(s.expire * 1000, m.timeZone))} <small>(${relative(s.expire * 1000 - now)})</small>`
      : 'Never';
  const lastSeen = s.lastOnline > 0 ? `${esc(formatDate(s.lastOnline * 1000, m.timeZone))}` : 'Never';

  const stat = (label: string, value: string, id: string) =>
    `<div class="stat"><span>${label}</span><b data-testid="${id}">${value}</b></div>`;
  const copyRow = (url: string) =>
    `<div class="url"><code>${esc(url)}</code><button type="button" data-copy="${esc(url)}">Copy</button></div>`;

  const links = m.links
    .map(
      (l, i) => `<section class="link" data-testid="link">
<h3>${esc(l.name || `Link ${i + 1}`)}</h3>
${qrSvg(l.url, esc(`QR code of ${l.name || `link ${i + 1}`}`))}
${copyRow(l.url)}
</section>`,
    )
    .join('\n');

  const urls = m.urls.map((u) => `<div class="link"><h3>${esc(u.name)}</h3>${copyRow(u.url)}</div>`).join('\n');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<meta name="referrer" content="no-referrer">
<title>${esc(m.title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header><h1 data-testid="name">${esc(m.title)}</h1><span class="badge ${state[0]}" data-testid="state">${state[1]}</span>${onlineBadge}</header>
${m.announce ? `<div class="card notice">${esc(m.announce)}</div>` : ''}
<div class="card">
<h2>Usage</h2>
<div class="stats">
${stat('Used', formatBytes(used), 'used')}
${stat('Remaining', remaining, 'remaining')}
${stat('Total', s.total > 0 ? formatBytes(s.total) : '∞', 'total')}
${stat('Upload', formatBytes(s.up), 'upload')}
${stat('Download', formatBytes(s.down), 'download')}
${stat('Expires', expiry, 'expiry')}
${stat('Last online', lastSeen, 'last-online')}
</div>
${s.total > 0 ? `<div class="bar" role="progressbar" aria-valuenow="${pct}" aria-valuemin="0" aria-valuemax="100"><i style="width:${pct}%"></i></div>` : ''}
</div>
<div class="card">
<h2>Subscription</h2>
${urls}
</div>
<div class="card">
<h2>Links (${m.links.length})</h2>
${links || '<p>No active links.</p>'}
</div>
<footer>${m.supportUrl ? `Support: <a href="${esc(m.supportUrl)}" rel="noopener noreferrer">${esc(m.supportUrl)}</a>` : ''}</footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>`;
}
