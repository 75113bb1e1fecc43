// Settings: four tabs over /panel/setting. Panel, Subscription and Telegram edit the settings blob (each Save
// sends only the keys changed on its tab; the API's message is shown next to the field it names); Security
// changes the admin credential, manages API tokens and enrols two-factor login (the code is checked by the
// server). Listener changes need a panel restart: "Restart panel" restarts it and follows it to its new address.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { base } from '../api';
import { announce } from '../announce';
import { Dialog } from '../common';
import { dateTime } from '../i18n';
import { onLive, onReconnect } from '../live';
import { useRefetch } from '../refetch';
import { settingsApi, type ApiToken, type Settings } from './settings.api';
import { t } from './settings.i18n';
import './settings.css';
import { panelId, TabList, tabId, useUrlTab } from '../tabs';

type SettingKey = keyof Settings;
type Key = Parameters<typeof t>[0];
type Kind = 'text' | 'number' | 'bool' | 'textarea' | 'secret' | 'timezone';
interface Field {
  key: SettingKey;
  kind: Kind;
  hint?: Key;
  /** Text that is not read right to left in Persian (addresses, paths, URLs). */
  ltr?: boolean;
}
interface Group {
  legend: Key;
  fields: Field[];
}

const txt = (key: SettingKey, hint?: Key): Field => ({ key, kind: 'text', hint, ltr: true });
const int = (key: SettingKey, hint?: Key): Field => ({ key, kind: 'number', hint, ltr: true });
const bool = (key: SettingKey): Field => ({ key, kind: 'bool' });

const PANEL: Group[] = [
  {
    legend: 'gListener',
    fields: [
      txt('webListen', 'hintListen'),
      int('webPort'),
      txt('webBasePath', 'hintBasePath'),
      txt('webDomain', 'hintDomain'),
      txt('webCertFile', 'hintCert'),
      txt('webKeyFile'),
    ],
  },
  {
    legend: 'gSessions',
    fields: [
      int('sessionMaxAge'),
      { key: 'timeLocation', kind: 'timezone', hint: 'hintTimeZone', ltr: true },
      int('pageSize', 'hintPageSize'),
      txt('trustedProxyCIDRs', 'hintProxies'),
    ],
  },
  {
    legend: 'gClients',
    fields: [
      int('expireDiff', 'hintExpire'),
      int('trafficDiff', 'hintTraffic'),
      bool('restartCoreOnClientDisable'),
      bool('ipLimitEnable'),
    ],
  },
];

const SUBSCRIPTION: Group[] = [
  {
    legend: 'gListener',
    fields: [
      bool('subEnable'),
      txt('subListen', 'hintSubListen'),
      int('subPort'),
      txt('subPath'),
      txt('subDomain', 'hintDomain'),
      txt('subCertFile', 'hintCert'),
      txt('subKeyFile'),
      txt('subURI', 'hintSubUri'),
    ],
  },
  {
    legend: 'gFormats',
    fields: [
      bool('subEncrypt'),
      bool('subShowInfo'),
      bool('subJsonEnable'),
      txt('subJsonPath'),
      bool('subClashEnable'),
      txt('subClashPath'),
    ],
  },
  {
    legend: 'gHeaders',
    fields: [
      { key: 'subTitle', kind: 'text' },
      txt('subSupportUrl'),
      txt('subProfileUrl'),
      int('subUpdates', 'hintUpdates'),
      { key: 'subAnnounce', kind: 'textarea' },
    ],
  },
  {
    legend: 'gRouting',
    fields: [bool('subEnableRouting'), { key: 'subRoutingRules', kind: 'textarea', ltr: true }],
  },
];

const TELEGRAM: Group[] = [
  {
    legend: 'gBot',
    fields: [
      bool('tgBotEnable'),
      { key: 'tgBotToken', kind: 'secret', ltr: true },
      txt('tgBotChatId', 'hintChatIds'),
      txt('tgBotApiUrl'),
    ],
  },
];

/** Keys the listeners read when they start: saving them needs a panel restart. */
const RESTART_KEYS = new Set<SettingKey>([
  'webListen',
  'webPort',
  'webBasePath',
  'webCertFile',
  'webKeyFile',
  'subEnable',
  'subListen',
  'subPort',
  'subCertFile',
  'subKeyFile',
]);

const TABS = [
  ['panel', 'tabPanel'],
  ['security', 'tabSecurity'],
  ['subscription', 'tabSubscription'],
  ['telegram', 'tabTelegram'],
] as const;
const TAB_IDS = TABS.map(([id]) => id);

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));
/** The key an API message names (`webPort: must be …`), if any. */
const keyOf = (msg: string) => /^([A-Za-z][\w.]*): /.exec(msg)?.[1];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A message kept across the reload that follows a credential change (its CSRF token changes). */
const NOTE_KEY = 'panel.settings.note';

type Draft = Partial<Record<SettingKey, string | boolean>>;

export function Settings() {
  const [saved, setSaved] = useState<Settings | null>(null);
  const [tab, choose] = useUrlTab(TAB_IDS);
  const [restartPending, setRestartPending] = useState(false);
  const [restartNote, setRestartNote] = useState<{ text: string; href?: string } | null>(null);
  const [restarting, setRestarting] = useState(false);
  const [overridden, setOverridden] = useState<ReadonlySet<string>>(new Set());
  /** The settings the panel listens with now (as loaded with this page), for computing its next address. */
  const listening = useRef<Settings | null>(null);
  const live = useRefetch(() =>
    settingsApi.all().then(
      (s) => {
        listening.current ??= s;
        setSaved(s);
      },
      (e) => announce(errText(e), true),
    ),
  );

  useEffect(() => {
    live.run();
    settingsApi.overridden().then(
      (keys) => setOverridden(new Set(keys)),
      () => {}, // only a hint: the page works without it
    );
    const off = onLive((m) => {
      if (m.type === 'invalidate' && m.resource === 'settings') live.soon();
    });
    const offRe = onReconnect(live.run);
    let note: string | null = null;
    try {
      note = sessionStorage.getItem(NOTE_KEY);
      sessionStorage.removeItem(NOTE_KEY);
    } catch {
      // no storage: nothing kept
    }
    const timer = note ? setTimeout(() => announce(note!), 400) : 0;
    return () => {
      off();
      offRe();
      clearTimeout(timer);
    };
  }, []);

  const onSaved = (s: Settings, changed: SettingKey[]) => {
    setSaved(s);
    const needRestart = changed.some((k) => RESTART_KEYS.has(k));
    if (needRestart) setRestartPending(true);
    const fields = changed.map((k) => t(k as Key)).join(', ');
    announce(t(needRestart ? 'savedRestart' : 'saved', { fields }));
  };

  const restart = async () => {
    if (!saved || restarting) return;
    setRestarting(true);
    setRestartNote({ text: t('restarting') });
    try {
      await settingsApi.restartPanel();
    } catch (err) {
      setRestarting(false);
      setRestartNote(null);
      announce(errText(err), true);
      return;
    }
    announce(t('restarting'));
    const target = nextBaseUrl(listening.current ?? saved, saved);
    const outcome = await followRestart(target, (url) => setRestartNote({ text: t('waitingFor', { url }) }));
    if (outcome === 'moved') {
      location.assign(`${target}panel/settings`);
      return;
    }
    setRestarting(false);
    if (outcome === 'same') {
      setRestartPending(false);
      setRestartNote({ text: t('restartedHere') });
      announce(t('restartedHere'));
      live.run();
    } else if (outcome === 'kept') {
      setRestartNote({ text: t('restartKept') });
      announce(t('restartKept'), true);
    } else {
      setRestartNote({ text: t('restartLost', { url: target }), href: target });
      announce(t('restartLost', { url: target }), true);
    }
  };

  return (
    <>
      <div class="row settings-head">
        <h1 class="grow">{t('title')}</h1>
        <button type="button" class={restartPending ? 'primary' : undefined} onClick={restart} disabled={restarting}>
          {t('restartPanel')}
        </button>
      </div>
      {(restartPending || restartNote) && (
        <div class="status settings-restart">
          {restartNote ? (
            <p>
              {restartNote.text}{' '}
              {restartNote.href && (
                <a href={restartNote.href} dir="ltr">
                  {restartNote.href}
                </a>
              )}
            </p>
          ) : (
            <p>{t('restartNeeded')}</p>
          )}
        </div>
      )}
      <TabList
        label={t('sections')}
        prefix="settings"
        ids={TAB_IDS}
        current={tab}
        name={(id) => t(TABS.find(([k]) => k === id)![1])}
        onChoose={choose}
      />
      <section
        role="tabpanel"
        id={panelId('settings', tab)}
        aria-labelledby={tabId('settings', tab)}
        class="settings-panel"
      >
        {saved === null ? (
          <p class="muted">{t('loading')}</p>
        ) : tab === 'security' ? (
          <SecurityTab saved={saved} reload={live.run} />
        ) : (
          <SettingsForm
            key={tab}
            groups={tab === 'panel' ? PANEL : tab === 'subscription' ? SUBSCRIPTION : TELEGRAM}
            saved={saved}
            overridden={overridden}
            onSaved={onSaved}
            extra={tab === 'telegram' ? (setErrors) => <TelegramBackup setErrors={setErrors} /> : undefined}
          />
        )}
      </section>
    </>
  );
}

/**
 * Where the panel will answer after the restart: the same host; the saved port and scheme when the browser talks
 * to the panel directly (its port is the one the panel listened on); the saved base path in place of the one it
 * was served under. Behind a reverse proxy (another port) only the base path changes.
 */
export function nextBaseUrl(before: Settings, after: Settings, loc: Location = location, pageBase = base): string {
  const port = Number(loc.port || (loc.protocol === 'https:' ? 443 : 80));
  const direct = port === before.webPort;
  let origin = loc.origin;
  if (direct) {
    const scheme = after.webCertFile && after.webKeyFile ? 'https:' : 'http:';
    const defaultPort = scheme === 'https:' ? 443 : 80;
    origin = `${scheme}//${loc.hostname}${after.webPort === defaultPort ? '' : `:${after.webPort}`}`;
  }
  const prefix = pageBase.endsWith(before.webBasePath)
    ? pageBase.slice(0, pageBase.length - before.webBasePath.length)
    : '';
  const path = prefix ? `${prefix}${after.webBasePath}` : after.webBasePath;
  return `${origin}${path.replace(/\/{2,}/g, '/')}`;
}

/** Probes a same-origin URL of the panel: true when it answers 2xx. */
async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    return r.ok;
  } catch {
    return false;
  }
}

/**
 * Waits for the restart: first the current listener goes away, then the panel answers at `target`. The page's
 * Content-Security-Policy (default-src 'self') forbids requests to another origin, so a new port cannot be probed
 * from here: then the old one must stay gone for a moment (a panel that could not use its new settings comes
 * back on the old address at once) before the browser is sent on.
 */
async function followRestart(
  target: string,
  waiting: (url: string) => void,
): Promise<'moved' | 'same' | 'kept' | 'lost'> {
  const here = `${location.origin}${base}`;
  const old = `${base}csrf-token`;
  const sameOrigin = new URL(target).origin === location.origin;
  // The restart comes about 3 seconds after the answer; the listener is closed and opened again at once.
  // Same address: the blink may be too short to see, so stop watching for it soon after the restart is due.
  let down = false;
  for (const until = Date.now() + (target === here ? 6000 : 15_000); Date.now() < until;) {
    if (!(await answers(old))) {
      down = true;
      break;
    }
    await sleep(150);
  }
  if (target === here) {
    // Then wait until it answers again.
    waiting(target);
    for (const until = Date.now() + 20_000; Date.now() < until; await sleep(300)) if (await answers(old)) return 'same';
    return 'lost';
  }
  if (!down) return (await answers(old)) ? 'kept' : 'lost';
  waiting(target);
  if (sameOrigin) {
    const probe = `${new URL(target).pathname}csrf-token`;
    for (const until = Date.now() + 20_000; Date.now() < until; await sleep(300)) {
      if (await answers(probe)) return 'moved';
      if (await answers(old)) return 'kept';
    }
    return 'lost';
  }
  await sleep(2000);
  return (await answers(old)) ? 'kept' : 'moved';
}

/** One tab's fields over the saved settings: edits are kept as a draft; Save sends only the changed keys. */
function SettingsForm(props: {
  groups: Group[];
  saved: Settings;
  overridden: ReadonlySet<string>;
  onSaved: (s: Settings, changed: SettingKey[]) => void;
  extra?: (setErrors: (e: Record<string, string>) => void) => ComponentChildren;
}) {
  const [draft, setDraft] = useState<Draft>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const fields = props.groups.flatMap((g) => g.fields);
  const keys = new Set(fields.map((f) => f.key));

  const valueOf = (f: Field): string | boolean => {
    const d = draft[f.key];
    if (d !== undefined) return d;
    const v = props.saved[f.key];
    return typeof v === 'boolean' ? v : String(v);
  };
  const toApi = (f: Field, v: string | boolean): unknown =>
    f.kind === 'number' && typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v;
  const changed = () =>
    fields.filter((f) => draft[f.key] !== undefined && toApi(f, draft[f.key]!) !== props.saved[f.key]);

  const edit = (key: SettingKey, v: string | boolean) => {
    setDraft((d) => ({ ...d, [key]: v }));
    if (errors[key]) setErrors(({ [key]: _gone, ...rest }) => rest);
  };

  const showError = (msg: string) => {
    const key = keyOf(msg);
    if (key && keys.has(key as SettingKey)) {
      setErrors({ [key]: msg.slice(key.length + 2) });
      setGeneral('');
      document.getElementById(`setting-${key}`)?.focus();
    } else {
      setErrors({});
      setGeneral(msg);
    }
    announce(msg, true);
  };

  const save = async (e: Event) => {
    e.preventDefault();
    const list = changed();
    if (list.length === 0) {
      setDraft({});
      announce(t('nothingToSave'));
      return;
    }
    setBusy(true);
    try {
      const patch = Object.fromEntries(list.map((f) => [f.key, toApi(f, draft[f.key]!)])) as Partial<Settings>;
      const s = await settingsApi.update(patch);
      setDraft({});
      setErrors({});
      setGeneral('');
      props.onSaved(
        s,
        list.map((f) => f.key),
      );
    } catch (err) {
      showError(errText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack" onSubmit={save} noValidate>
      {props.groups.map((g) => (
        <fieldset key={g.legend} class="settings-group">
          <legend>{t(g.legend)}</legend>
          <div class="settings-grid">
            {g.fields.map((f) => (
              <FieldInput
                key={f.key}
                field={f}
                value={valueOf(f)}
                error={errors[f.key]}
                overridden={props.overridden.has(f.key)}
                onInput={edit}
              />
            ))}
          </div>
        </fieldset>
      ))}
      {props.extra?.((e) => {
        setErrors(e);
        setGeneral('');
      })}
      <div role="alert" class="alert">
        {general}
      </div>
      <div class="settings-actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('saving') : t('save')}
        </button>
      </div>
    </form>
  );
}

let zones: string[] | null = null;
const timeZones = (): string[] => {
  if (!zones) {
    try {
      zones = (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
    } catch {
      zones = [];
    }
  }
  return zones;
};

function FieldInput(props: {
  field: Field;
  value: string | boolean;
  error?: string;
  overridden: boolean;
  onInput: (key: SettingKey, v: string | boolean) => void;
}) {
  const { field: f, value, error } = props;
  const id = `setting-${f.key}`;
  const hintId = f.hint ? `${id}-hint` : '';
  const envId = props.overridden ? `${id}-env` : '';
  const errId = error ? `${id}-error` : '';
  const describedBy = [hintId, envId, errId].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: f.key,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy,
  } as const;
  const str = typeof value === 'string' ? value : '';
  const onText = (e: Event) => props.onInput(f.key, (e.target as HTMLInputElement).value);
  const dir = f.ltr ? 'ltr' : undefined;

  const after = (
    <>
      {f.hint && (
        <small id={hintId} class="muted">
          {t(f.hint)}
        </small>
      )}
      {props.overridden && (
        <small id={envId} class="settings-env">
          {t('overridden')}
        </small>
      )}
      {error && (
        <span id={errId} class="field-error">
          {error}
        </span>
      )}
    </>
  );

  if (f.kind === 'bool') {
    return (
      <div class="settings-field settings-switch">
        <label class="inline" for={id}>
          <input
            {...common}
            type="checkbox"
            role="switch"
            class="switch"
            checked={value === true}
            onChange={(e) => props.onInput(f.key, (e.target as HTMLInputElement).checked)}
          />
          {t(f.key as Key)}
        </label>
        {after}
      </div>
    );
  }
  return (
    <div class={`settings-field${f.kind === 'textarea' ? ' wide' : ''}`}>
      <label for={id}>{t(f.key as Key)}</label>
      {f.kind === 'textarea' ? (
        <textarea {...common} rows={4} dir={dir} class={f.ltr ? 'mono' : undefined} value={str} onInput={onText} />
      ) : (
        <input
          {...common}
          // (one element for three input types; Preact's typings want a literal per element)
          type={(f.kind === 'number' ? 'number' : f.kind === 'secret' ? 'password' : 'text') as 'text'}
          inputMode={f.kind === 'number' ? 'numeric' : undefined}
          autoComplete="off"
          spellcheck={false}
          dir={dir}
          list={f.kind === 'timezone' ? 'settings-zones' : undefined}
          value={str}
          onInput={onText}
        />
      )}
      {f.kind === 'timezone' && (
        <datalist id="settings-zones">
          {timeZones().map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      )}
      {after}
    </div>
  );
}

/** "Send backup now" on the Telegram tab: the outcome is shown next to the button and announced. */
function TelegramBackup(props: { setErrors: (e: Record<string, string>) => void }) {
  const [state, setState] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    setBusy(true);
    setState({ text: t('backupSending'), error: false });
    try {
      const r = await settingsApi.backupToTelegram();
      const text = t('backupSent', { chats: r.sent.join(', ') });
      setState({ text, error: false });
      announce(text);
    } catch (err) {
      const msg = errText(err);
      const key = keyOf(msg);
      if (key === 'tgBotToken' || key === 'tgBotChatId') props.setErrors({ [key]: msg.slice(key.length + 2) });
      const text = t('backupFailed', { msg });
      setState({ text, error: true });
      announce(text, true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="settings-group stack">
      <p class="muted" id="settings-backup-hint">
        {t('backupHint')}
      </p>
      <div class="row">
        <button type="button" onClick={send} disabled={busy} aria-describedby="settings-backup-hint">
          {t('backupNow')}
        </button>
        <p class={state?.error ? 'field-error' : undefined} role="status">
          {state?.text ?? ''}
        </p>
      </div>
    </div>
  );
}

function SecurityTab(props: { saved: Settings; reload: () => void }) {
  return (
    <div class="stack">
      <Credential />
      <Tokens />
      <TwoFactor on={props.saved.twoFactorEnable && !!props.saved.twoFactorToken} reload={props.reload} />
    </div>
  );
}

/** A labelled text field with its own error element (not inside the label, so the name stays the label). */
function Text(props: {
  id: string;
  label: string;
  value: string;
  onInput: (v: string) => void;
  error?: string;
  type?: 'text' | 'password';
  autoComplete?: string;
  inputMode?: 'numeric';
}) {
  const errId = `${props.id}-error`;
  return (
    <div class="settings-field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={(props.type ?? 'text') as 'text'}
        autoComplete={props.autoComplete ?? 'off'}
        inputMode={props.inputMode}
        spellcheck={false}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? errId : undefined}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
      {props.error && (
        <span id={errId} class="field-error">
          {props.error}
        </span>
      )}
    </div>
  );
}

function Credential() {
  const empty = { oldUsername: '', oldPassword: '', newUsername: '', newPassword: '', repeat: '' };
  const [v, setV] = useState(empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof empty) => (x: string) => {
    setV((o) => ({ ...o, [k]: x }));
    setErrors(({ [k]: _gone, ...rest }) => rest);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setGeneral('');
    if (v.newPassword !== v.repeat) {
      setErrors({ repeat: t('passwordsDiffer') });
      announce(t('passwordsDiffer'), true);
      return;
    }
    setBusy(true);
    try {
      const { repeat: _r, ...body } = v;
      await settingsApi.updateUser(body);
      // The session was renewed with a new CSRF token: reload to pick it up, and say so after the reload.
      try {
        sessionStorage.setItem(NOTE_KEY, t('credentialChanged'));
      } catch {
        announce(t('credentialChanged'));
      }
      location.reload();
    } catch (err) {
      const msg = errText(err);
      const key = keyOf(msg);
      if (key && key in empty) setErrors({ [key]: msg.slice(key.length + 2) });
      else setGeneral(msg);
      announce(msg, true);
      setBusy(false);
    }
  };
  return (
    <form class="card stack" onSubmit={submit} noValidate aria-labelledby="settings-credential">
      <h2 id="settings-credential">{t('gCredential')}</h2>
      <div class="settings-grid">
        <Text
          id="cred-oldUsername"
          label={t('oldUsername')}
          value={v.oldUsername}
          onInput={set('oldUsername')}
          error={errors.oldUsername}
          autoComplete="username"
        />
        <Text
          id="cred-oldPassword"
          type="password"
          label={t('oldPassword')}
          value={v.oldPassword}
          onInput={set('oldPassword')}
          error={errors.oldPassword}
          autoComplete="current-password"
        />
        <Text
          id="cred-newUsername"
          label={t('newUsername')}
          value={v.newUsername}
          onInput={set('newUsername')}
          error={errors.newUsername}
        />
        <Text
          id="cred-newPassword"
          type="password"
          label={t('newPassword')}
          value={v.newPassword}
          onInput={set('newPassword')}
          error={errors.newPassword}
          autoComplete="new-password"
        />
        <Text
          id="cred-repeat"
          type="password"
          label={t('repeatPassword')}
          value={v.repeat}
          onInput={set('repeat')}
          error={errors.repeat}
          autoComplete="new-password"
        />
      </div>
      <div role="alert" class="alert">
        {general}
      </div>
      <div class="settings-actions">
        <button type="submit" class="primary" disabled={busy}>
          {t('changeCredential')}
        </button>
      </div>
    </form>
  );
}

function Tokens() {
  const [tokens, setTokens] = useState<ApiToken[] | null>(null);
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState('');
  const [fresh, setFresh] = useState<{ name: string; token: string } | null>(null);
  const [confirm, setConfirm] = useState<ApiToken | null>(null);
  const live = useRefetch(() => settingsApi.tokens().then(setTokens, (e) => announce(errText(e), true)));
  useEffect(() => {
    live.run();
    const off = onLive((m) => {
      if (m.type === 'invalidate' && m.resource === 'tokens') live.soon();
    });
    const offRe = onReconnect(live.run);
    return () => {
      off();
      offRe();
    };
  }, []);

  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const row = await settingsApi.createToken(name);
      setFresh({ name: row.name, token: row.token });
      setName('');
      setNameError('');
      announce(t('tokenCreated', { name: row.name }));
      live.run();
    } catch (err) {
      const msg = errText(err);
      setNameError(keyOf(msg) === 'name' ? msg.slice(6) : msg);
      announce(msg, true);
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(fresh!.token);
      announce(t('copied'));
    } catch {
      announce(t('copyFailed'), true);
    }
  };
  const toggle = async (row: ApiToken, enabled: boolean) => {
    try {
      await settingsApi.setTokenEnabled(row.id, enabled);
      setTokens((xs) => xs && xs.map((x) => (x.id === row.id ? { ...x, enabled } : x)));
      announce(t(enabled ? 'tokenEnabled' : 'tokenDisabled', { name: row.name }));
    } catch (err) {
      announce(errText(err), true);
      live.run();
    }
  };
  const remove = async (row: ApiToken) => {
    setConfirm(null);
    try {
      await settingsApi.deleteToken(row.id);
      announce(t('tokenDeleted', { name: row.name }));
    } catch (err) {
      announce(errText(err), true);
    }
    live.run();
  };

  return (
    <section class="card stack" aria-labelledby="settings-tokens">
      <h2 id="settings-tokens">{t('gTokens')}</h2>
      <p class="muted">{t('tokensIntro')}</p>
      <form class="row settings-token-form" onSubmit={create} noValidate>
        <div class="settings-field grow">
          <label for="token-name">{t('tokenName')}</label>
          <input
            id="token-name"
            type="text"
            autoComplete="off"
            maxLength={64}
            value={name}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? 'token-name-error' : undefined}
            onInput={(e) => {
              setName((e.target as HTMLInputElement).value);
              setNameError('');
            }}
          />
          {nameError && (
            <span id="token-name-error" class="field-error">
              {nameError}
            </span>
          )}
        </div>
        <button type="submit" class="primary">
          {t('createToken')}
        </button>
      </form>
      {fresh && (
        <div class="status stack" role="group" aria-labelledby="settings-fresh-token">
          <strong id="settings-fresh-token">{t('newTokenTitle', { name: fresh.name })}</strong>
          <p>{t('newTokenOnce')}</p>
          <code class="link-text" dir="ltr">
            {fresh.token}
          </code>
          <div class="row">
            <button type="button" class="primary" onClick={copy}>
              {t('copy')}
            </button>
            <button type="button" onClick={() => setFresh(null)}>
              {t('done')}
            </button>
          </div>
        </div>
      )}
      {tokens === null ? (
        <p class="muted">{t('loading')}</p>
      ) : tokens.length === 0 ? (
        <p class="muted">{t('noTokens')}</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>{t('colName')}</th>
              <th>{t('colCreated')}</th>
              <th>{t('colEnabled')}</th>
              <th>
                <span class="visually-hidden">{t('colActions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((row) => (
              <tr key={row.id}>
                <td data-label={t('colName')}>{row.name}</td>
                <td data-label={t('colCreated')}>{dateTime(row.createdAt * 1000)}</td>
                <td data-label={t('colEnabled')}>
                  <input
                    type="checkbox"
                    role="switch"
                    class="switch"
                    checked={row.enabled}
                    aria-label={t('enabledName', { name: row.name })}
                    onChange={(e) => toggle(row, (e.target as HTMLInputElement).checked)}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={t('deleteName', { name: row.name })}
                    onClick={() => setConfirm(row)}
                  >
                    {t('delete')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Dialog title={t('deleteToken')} open={confirm !== null} onClose={() => setConfirm(null)}>
        {confirm && (
          <>
            <p>{t('deleteConfirm', { name: confirm.name })}</p>
            <div class="actions">
              <button type="button" onClick={() => setConfirm(null)}>
                {t('cancel')}
              </button>
              <button type="button" class="danger" onClick={() => remove(confirm)}>
                {t('delete')}
              </button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** A new TOTP secret: 160 random bits (getRandomValues works on plain http too) as 32 base32 characters. */
export function newTotpSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

const otpauthUri = (secret: string) =>
  `otpauth://totp/${encodeURIComponent('Panel')}:${encodeURIComponent(location.hostname)}` +
  `?secret=${secret}&issuer=Panel&algorithm=SHA1&digits=6&period=30`;

function TwoFactor(props: { on: boolean; reload: () => void }) {
  const [mode, setMode] = useState<null | { kind: 'enrol'; secret: string; svg: string } | { kind: 'disable' }>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const start = async () => {
    const secret = newTotpSecret();
    const svg = await QRCode.toString(otpauthUri(secret), { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    setCode('');
    setError('');
    setMode({ kind: 'enrol', secret, svg });
  };
  const stop = () => {
    setMode(null);
    setCode('');
    setError('');
  };
  const confirm = async (e: Event) => {
    e.preventDefault();
    if (!mode) return;
    setBusy(true);
    try {
      if (mode.kind === 'enrol') await settingsApi.enableTwoFactor(mode.secret, code);
      else await settingsApi.disableTwoFactor(code);
      announce(t(mode.kind === 'enrol' ? 'twoFactorEnabled' : 'twoFactorDisabled'));
      stop();
      props.reload();
    } catch (err) {
      const msg = errText(err);
      setError(keyOf(msg) === 'code' ? msg.slice(6) : msg);
      announce(msg, true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card stack" aria-labelledby="settings-2fa">
      <h2 id="settings-2fa">{t('gTwoFactor')}</h2>
      <p>{t(props.on ? 'twoFactorOn' : 'twoFactorOff')}</p>
      {mode === null && (
        <div class="row">
          <button type="button" onClick={props.on ? () => setMode({ kind: 'disable' }) : start}>
            {t(props.on ? 'disableTwoFactor' : 'enableTwoFactor')}
          </button>
        </div>
      )}
      {mode && (
        <form class="stack" onSubmit={confirm} noValidate>
          {mode.kind === 'enrol' ? (
            <div class="settings-enrol">
              <div class="qr" role="img" aria-label={t('qrSecret')} dangerouslySetInnerHTML={{ __html: mode.svg }} />
              <div class="stack">
                <p>{t('enrolIntro')}</p>
                <div>
                  <span class="muted" id="settings-2fa-secret">
                    {t('secret')}
                  </span>
                  <code class="link-text settings-secret" dir="ltr">
                    {mode.secret.replace(/(.{4})(?=.)/g, '$1 ')}
                  </code>
                </div>
              </div>
            </div>
          ) : (
            <p>{t('disableIntro')}</p>
          )}
          <div class="settings-code">
            <Text
              id="settings-2fa-code"
              label={t('code')}
              value={code}
              onInput={(v) => {
                setCode(v);
                setError('');
              }}
              error={error}
              autoComplete="one-time-code"
              inputMode="numeric"
            />
          </div>
          <div class="row">
            <button type="submit" class="primary" disabled={busy}>
              {t(mode.kind === 'enrol' ? 'turnOn' : 'turnOff')}
            </button>
            <button type="button" onClick={stop}>
              {t('cancel')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
