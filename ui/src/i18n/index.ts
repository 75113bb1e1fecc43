// Languages of the UI. Every page keeps its strings in a catalog next to it (`*.i18n.ts`, made with `messages`)
// holding all four languages; the compiler refuses a catalog with a key missing in one language, and
// test/ui/i18n-catalogs.test.ts checks placeholders and empty strings. The language follows the browser until
// the user picks one (kept in localStorage), and it sets <html lang dir>.

export const LANGS = [
  ['en', 'English'],
  ['ru', 'Русский'],
  ['fa', 'فارسی'],
  ['zh', '简体中文'],
] as const;
export type Lang = (typeof LANGS)[number][0];

const STORAGE_KEY = 'panel.lang';
const isLang = (v: unknown): v is Lang => LANGS.some(([l]) => l === v);

function initialLang(): Lang {
  if (typeof window === 'undefined') return 'en';
  try {
    const kept = localStorage.getItem(STORAGE_KEY);
    if (isLang(kept)) return kept;
  } catch {
    // storage refused (private mode): follow the browser
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const l = tag.toLowerCase().split('-')[0];
    if (isLang(l)) return l;
  }
  return 'en';
}

let current: Lang = initialLang();
const listeners = new Set<() => void>();

export const lang = (): Lang => current;
/** The BCP 47 tag `Intl` formats with; Persian asks for its own calendar explicitly. */
export const locale = (): string => (current === 'fa' ? 'fa-IR-u-ca-persian' : current === 'zh' ? 'zh-CN' : current);
export const dir = (l: Lang = current): 'rtl' | 'ltr' => (l === 'fa' ? 'rtl' : 'ltr');

export function applyLang(): void {
  document.documentElement.lang = current;
  document.documentElement.dir = dir();
}

/** Switches the language, keeps the choice in this browser, and tells subscribers (the app re-renders). */
export function setLang(l: Lang): void {
  if (l === current) return;
  current = l;
  try {
    localStorage.setItem(STORAGE_KEY, l);
  } catch {
    // not kept: the choice still applies to this page
  }
  applyLang();
  formatters.clear();
  for (const f of listeners) f();
}

export function onLangChange(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

export type Catalog<K extends string> = { en: Record<K, string> } & Record<Exclude<Lang, 'en'>, Record<K, string>>;
export type Vars = Record<string, string | number>;
export type Translate<K extends string> = (key: K, vars?: Vars) => string;

/** Every catalog made by `messages`, for the completeness test. */
export const catalogs: Catalog<string>[] = [];

/**
 * A page's translations: `const t = messages({ en: {...}, ru: {...}, fa: {...}, zh: {...} })`, then `t('key')` or
 * `t('key', { n: 3 })` for `{n}` placeholders (numbers are formatted for the language).
 */
export function messages<K extends string>(catalog: Catalog<K>): Translate<K> {
  catalogs.push(catalog as Catalog<string>);
  return (key, vars) => {
    const text = catalog[current][key] ?? catalog.en[key] ?? key;
    if (!vars) return text;
    return text.replace(/\{(\w+)\}/g, (m, name: string) => {
      const v = vars[name];
      if (v === undefined) return m;
      return typeof v === 'number' ? num(v) : v;
    });
  };
}

const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>();
function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(
  key: string,
  make: () => T,
): T {
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = make()));
  return f as T;
}

export const num = (n: number, maxFraction = 0): string =>
  cached(`n${maxFraction}`, () => new Intl.NumberFormat(locale(), { maximumFractionDigits: maxFraction })).format(n);

/** A percentage given as 0–100 ("12.5%", "۱۲٫۵٪"). */
export const percent = (n: number, maxFraction = 1): string =>
  cached(
    `p${maxFraction}`,
    () => new Intl.NumberFormat(locale(), { style: 'percent', maximumFractionDigits: maxFraction }),
  ).format(n / 100);

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte', 'petabyte'] as const;
/** Binary multiples (1 KB = 1024 B, as the API counts), labelled in the language. */
export function bytes(n: number): string {
  const i = n ? Math.min(BYTE_UNITS.length - 1, Math.floor(Math.log(Math.abs(n)) / Math.log(1024))) : 0;
  const unit = BYTE_UNITS[Math.max(0, i)];
  return cached(
    `b${unit}`,
    () =>
      new Intl.NumberFormat(locale(), {
        style: 'unit',
        unit,
        unitDisplay: 'short',
        maximumFractionDigits: i ? 2 : 0,
      }),
  ).format(n / 1024 ** Math.max(0, i));
}

export const date = (ms: number): string =>
  cached('d', () => new Intl.DateTimeFormat(locale(), { dateStyle: 'medium' })).format(ms);
export const dateTime = (ms: number): string =>
  cached('dt', () => new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' })).format(ms);
export const time = (ms: number): string =>
  cached('t', () => new Intl.DateTimeFormat(locale(), { timeStyle: 'medium' })).format(ms);

/** Hours and minutes only (chart axes). */
export const clock = (ms: number): string =>
  cached('c', () => new Intl.DateTimeFormat(locale(), { hour: '2-digit', minute: '2-digit' })).format(ms);

/** "in 3 days", "2 hours ago" in the language. */
export function relative(ms: number, now = Date.now()): string {
  const rtf = cached('r', () => new Intl.RelativeTimeFormat(locale(), { numeric: 'auto' }));
  const d = ms - now;
  const abs = Math.abs(d);
  if (abs < 3_600_000) return rtf.format(Math.round(d / 60_000), 'minute');
  if (abs < 86_400_000) return rtf.format(Math.round(d / 3_600_000), 'hour');
  return rtf.format(Math.round(d / 86_400_000), 'day');
}

/** A duration in the largest two units ("3 d 4 h", "5 min"), unit names in the language. */
export function duration(seconds: number): string {
  const parts: [number, 'day' | 'hour' | 'minute'][] = [
    [Math.floor(seconds / 86_400), 'day'],
    [Math.floor((seconds % 86_400) / 3600), 'hour'],
    [Math.floor((seconds % 3600) / 60), 'minute'],
  ];
  const shown = parts.filter(([n]) => n > 0).slice(0, 2);
  const unit = (n: number, u: string) =>
    cached(`u${u}`, () => new Intl.NumberFormat(locale(), { style: 'unit', unit: u, unitDisplay: 'short' })).format(n);
  return shown.length ? shown.map(([n, u]) => unit(n, u)).join(' ') : unit(0, 'minute');
}
