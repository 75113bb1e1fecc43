// Server tools: generated keys, the core version list (cached 15 min, stale on error) and core install, geo
// file updates, panel and core logs, database download / import / Telegram backup, and the honest panel
// update answer. Outbound requests go through the guarded HTTP port; files through the ServerHost port.
import type { Store } from '../ports/store.js';
import type { RestoreOptions, RestoreResult } from '../ports/backup-repo.js';
import { hashPassword } from '../auth/password.js';
import { convertXui } from './xui-import.js';
import type { Clock } from '../shared/clock.js';
import type { EventSink } from '../shared/events.js';
import type { PanelControl } from '../ports/runtime.js';
import type { HttpClient, HttpResponse } from '../ports/http.js';
import { multipartBody } from '../ports/http.js';
import type {
  CoreBinarySwitch,
  LogLevel,
  PanelInstaller,
  PanelLogSource,
  ServerHost,
  SystemJournal,
} from '../ports/server-tools.js';
import type { SettingsService } from '../settings/service.js';
import type { CoreService } from '../core/service.js';
import { DomainError } from '../shared/errors.js';
import { hex, uuidv4 } from '../shared/random.js';
import { generateEch, generateMldsa65, generateMlkem768, generateVlessEnc, generateX25519 } from '../keys/index.js';
import {
  compareVersions,
  DEFAULT_GEO_FILES,
  GEO_FILES,
  isGeoFileName,
  normaliseVersion,
  parseDigestSha256,
  parseReleaseTags,
  parseSha256Sum,
  parseStableTags,
} from './releases.js';
import { filterCoreLog, outboundClasses, type CoreLogFilter } from './core-logs.js';

export const RESTART_GRACE_MS = 3000;
export const CORE_VERSIONS_TTL_MS = 15 * 60 * 1000;
const CORE_REPO = 'XTLS/Xray-core';
const MAX_RELEASE_LIST_BYTES = 8 * 1024 * 1024;
const MAX_CORE_ZIP_BYTES = 100 * 1024 * 1024;
const MAX_GEO_BYTES = 64 * 1024 * 1024;
const MAX_LOG_LINES = 10_000;
const IMPORT_RESTART_DELAY_MS = 3000;

export type ImportResult = RestoreResult & { backup: string };

export const PANEL_UPDATE_HELP =
  'this installation has no self-update: update the checkout (git pull, npm install, npm run build) and restart the service';
export const PANEL_REPO = 'proxy-panel/proxy-panel';
const MAX_PANEL_ARCHIVE_BYTES = 200 * 1024 * 1024;

/** Optional ports; the node adapter provides them, other runtimes may not. */
export interface ServerToolsPorts {
  host?: ServerHost;
  logs?: PanelLogSource;
  /** The service manager's journal (`syslog: true`); absent where there is none. */
  journal?: SystemJournal;
  coreSwitch?: CoreBinarySwitch;
  /** Where releases come from (tests point these at a local fake server). */
  sources?: { githubApi?: string; githubDownload?: string };
  /** The panel's own release feed: `owner/repo` on GitHub (or a mirror at the same addresses). */
  panelRepo?: string;
  /** Where the panel's own releases come from, when not where the core's do (a mirror, a test feed). */
  panelFeed?: { api?: string; download?: string };
  /** A release mirror on a private network: let the feed's requests reach private addresses. */
  panelFeedAllowPrivate?: boolean;
  /** Self-update of an installed panel; absent where the panel cannot replace itself. */
  installer?: PanelInstaller;
}

export interface ServerToolsDeps extends ServerToolsPorts {
  store: Store;
  clock: Clock;
  events: EventSink;
  settings: SettingsService;
  core: CoreService;
  panel: PanelControl;
  panelVersion: string;
  http?: HttpClient;
  /** Reloads state cached from the database (the session secret) after an import. */
  afterImport?: () => Promise<void>;
}

const LEVELS: Record<string, LogLevel> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warn: 'warn',
  warning: 'warn',
  err: 'error',
  error: 'error',
};

const text = (r: HttpResponse) => new TextDecoder().decode(r.body);
const errMsg = (err: unknown) => (err instanceof Error ? err.message : String(err));

function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

export class ServerToolsService {
  private versions: { list: string[]; at: number } | null = null;
  private panelReleases: { list: string[]; at: number } | null = null;
  private installing = false;
  private updating = false;
  private readonly githubApi: string;
  private readonly githubDownload: string;

  constructor(private d: ServerToolsDeps) {
    this.githubApi = (d.sources?.githubApi ?? 'https://api.github.com').replace(/\/+$/, '');
    this.githubDownload = (d.sources?.githubDownload ?? 'https://github.com').replace(/\/+$/, '');
  }

  // ---- keys ------------------------------------------------------------------------------------------------

  newUuid(): string {
    return uuidv4();
  }
  newX25519() {
    return generateX25519();
  }
  newMldsa65() {
    return generateMldsa65();
  }
  newMlkem768() {
    return generateMlkem768();
  }
  newVlessEnc() {
    return generateVlessEnc();
  }
  newEch(sni: string) {
    return generateEch(sni);
  }

  // ---- core versions and install ------------------------------------------------------------------------------

  private http(): HttpClient {
    if (!this.d.http) throw new DomainError('outbound HTTP is not available in this runtime');
    return this.d.http;
  }

  private host(): ServerHost {
    if (!this.d.host) throw new DomainError('host files are not available in this runtime');
    return this.d.host;
  }

  /** getCoreVersion: installable core versions, newest first; cached 15 min; a stale list is served on error. */
  async coreVersions(): Promise<string[]> {
    const now = this.d.clock.now();
    if (this.versions && now - this.versions.at < CORE_VERSIONS_TTL_MS && now >= this.versions.at)
      return this.versions.list;
    try {
      const res = await this.http().request({
        url: `${this.githubApi}/repos/${CORE_REPO}/releases?per_page=100`,
        headers: { accept: 'application/vnd.github+json' },
        timeoutMs: 10_000,
        maxBytes: MAX_RELEASE_LIST_BYTES,
      });
      if (res.status !== 200) {
        let detail = `HTTP ${res.status}`;
        try {
          const m = (JSON.parse(text(res)) as { message?: unknown }).message;
          if (typeof m === 'string' && m) detail += `: ${m.slice(0, 200)}`;
        } catch {
          /* not JSON */
        }
        throw new Error(detail);
      }
      let json: unknown;
      try {
        json = JSON.parse(text(res));
      } catch {
        throw new Error('the release list is not JSON');
      }
      const list = parseReleaseTags(json);
      this.versions = { list, at: now };
      return list;
    } catch (err) {
      if (this.versions) return this.versions.list; // stale beats nothing
      throw new DomainError(`cannot fetch the core versions: ${errMsg(err)}`);
    }
  }

  /** installCore/:version — download the release zip for this platform, verify its SHA-256, unpack, restart. */
  async installCore(input: string): Promise<{ version: string; path: string; restarted: boolean; note?: string }> {
    const wanted = normaliseVersion(input);
    if (!wanted) throw new DomainError('version: must be a release tag such as v25.10.31, or latest');
    const host = this.host();
    const asset = host.coreAssetName();
    if (!asset) throw new DomainError('there is no core release for this platform');
    if (this.installing) throw new DomainError('a core installation is already running');
    this.installing = true;
    try {
      const list = await this.coreVersions();
      const version = wanted === 'latest' ? list[0] : wanted;
      if (!version) throw new DomainError('the release list is empty');
      if (!list.includes(version)) throw new DomainError(`version: ${version} is not an available core release`);
      const url = `${this.githubDownload}/${CORE_REPO}/releases/download/${version}/${asset}`;
      const zip = await this.download(url, MAX_CORE_ZIP_BYTES, 180_000, `core ${version}`);
      const dgst = await this.download(`${url}.dgst`, 64 * 1024, 30_000, `core ${version} checksum`);
      let want: string;
      try {
        want = parseDigestSha256(new TextDecoder().decode(dgst));
      } catch (err) {
        throw new DomainError(`core ${version}: ${errMsg(err)}`);
      }
      const got = hex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', zip as Uint8Array<ArrayBuffer>)));
      if (got !== want) {
        throw new DomainError(
          `core ${version}: the download does not match the published SHA-256 (expected ${want}, got ${got}); nothing was installed`,
        );
      }
      let path: string;
      try {
        path = await host.installCoreBinary(zip);
      } catch (err) {
        throw new DomainError(`core ${version}: ${errMsg(err)}`);
      }
      const switched = this.d.coreSwitch
        ? await this.d.coreSwitch.activate(path)
        : { ok: false, note: 'restart the panel to use it' };
      let restarted = false;
      let note = switched.note;
      if (switched.ok) {
        try {
          await this.d.core.restart();
          restarted = true;
        } catch (err) {
          note = `installed, but the core did not start: ${errMsg(err)}`;
        }
      }
      this.d.events.emit('notification', {
        title: 'Core installed',
        body: `core ${version} installed${restarted ? ' and running' : note ? `; ${note}` : ''}`,
        severity: restarted ? 'success' : 'warning',
      });
      return { version, path, restarted, note };
    } finally {
      this.installing = false;
    }
  }

  private async download(url: string, maxBytes: number, timeoutMs: number, what: string): Promise<Uint8Array> {
    let res: HttpResponse;
    try {
      res = await this.http().request({ url, maxBytes, timeoutMs });
    } catch (err) {
      throw new DomainError(`${what}: download failed: ${errMsg(err)}`);
    }
    if (res.status !== 200) throw new DomainError(`${what}: download failed: HTTP ${res.status}`);
    if (res.body.length === 0) throw new DomainError(`${what}: the download is empty`);
    return res.body;
  }

  // ---- geo files ------------------------------------------------------------------------------------------

  /** updateGeofile: one allow-listed file, or the defaults (geoip.dat, geosite.dat); then restarts a running core. */
  async updateGeoFiles(fileName?: string): Promise<{ updated: string[]; restarted: boolean }> {
    const name = fileName?.trim() ?? '';
    if (name && !isGeoFileName(name)) {
      throw new DomainError(
        `fileName: ${name.slice(0, 64)} is not an allowed geo file (${Object.keys(GEO_FILES).join(', ')})`,
      );
    }
    const host = this.host();
    const names = name ? [name] : DEFAULT_GEO_FILES;
    const updated: string[] = [];
    const errors: string[] = [];
    for (const n of names) {
      const src = GEO_FILES[n]!;
      try {
        const data = await this.download(
          `${this.githubDownload}/${src.repo}/releases/latest/download/${src.asset}`,
          MAX_GEO_BYTES,
          180_000,
          n,
        );
        await host.writeGeoFile(n, data);
        updated.push(n);
      } catch (err) {
        errors.push(errMsg(err));
      }
    }
    let restarted = false;
    if (updated.length && this.d.core.status().state === 'running') {
      try {
        await this.d.core.restart();
        restarted = true;
      } catch (err) {
        errors.push(`updated ${updated.join(', ')} but the core did not restart: ${errMsg(err)}`);
      }
    }
    if (errors.length) throw new DomainError(errors.join('; '));
    return { updated, restarted };
  }

  // ---- logs -------------------------------------------------------------------------------------------------

  /** logs/:count — the last panel log lines at or above `level` (the panel's own in-memory log). */
  panelLogs(count: number, level = 'info'): string {
    const lvl = LEVELS[level.trim().toLowerCase() || 'info'];
    if (!lvl) throw new DomainError('level: must be debug, info, warn or error');
    if (!this.d.logs) throw new DomainError('the panel log is not available in this runtime');
    return this.d.logs.tail(Math.min(count, MAX_LOG_LINES), lvl).join('\n');
  }

  /**
   * logs/:count with `syslog`: the service's journal when the panel runs under systemd and journalctl exists;
   * otherwise the panel's own log, with a note saying why.
   */
  async panelLogsFrom(count: number, level: string, syslog: boolean): Promise<{ text: string; note: string }> {
    const own = this.panelLogs(count, level);
    if (!syslog) return { text: own, note: '' };
    const lvl = LEVELS[level.trim().toLowerCase() || 'info']!;
    const why = this.d.journal
      ? await this.d.journal.tail(Math.min(count, MAX_LOG_LINES), lvl)
      : { unavailable: 'no system journal in this runtime' };
    if ('lines' in why) return { text: why.lines.join('\n'), note: 'from the systemd journal' };
    return { text: own, note: `syslog: ${why.unavailable}; showing the panel's own log instead` };
  }

  /** corelogs/:count — the last core log lines (access and error logs in the data directory), filtered. */
  async coreLogs(count: number, f: CoreLogFilter): Promise<string> {
    const lines = await this.host().coreLogLines(MAX_LOG_LINES * 5);
    const classes = outboundClasses(await this.d.core.template());
    return filterCoreLog(lines, Math.min(count, MAX_LOG_LINES), f, classes).join('\n');
  }

  // ---- database ---------------------------------------------------------------------------------------------

  backupFileName(): string {
    return `panel_${stamp(this.d.clock.now())}.db`;
  }

  /** getDb: a consistent SQLite snapshot of the whole panel database (the same portable file on both backends). */
  async databaseFile(): Promise<{ fileName: string; data: Uint8Array }> {
    const data = await this.d.store.backup.snapshot();
    return { fileName: this.backupFileName(), data };
  }

  /** `panel db export FILE`: the same snapshot written to a file. */
  async exportDatabase(path: string): Promise<void> {
    await this.d.store.backup.snapshotTo(path);
  }

  /**
   * importDB: keeps a snapshot of the current database in $PANEL_DATA_DIR/backups/, replaces the data with the
   * upload (a backup of this panel from either backend, or a 3x-ui database, converted), then restarts the core
   * and the panel.
   */
  async importDatabase(data: Uint8Array): Promise<ImportResult> {
    const result = await this.replaceDatabase((opts) => this.d.store.backup.restore(data, opts));
    let coreNote = '';
    try {
      await this.d.core.restart();
    } catch (err) {
      coreNote = `; the core did not start: ${errMsg(err)}`;
    }
    this.d.events.emit('notification', {
      title: 'Database imported',
      body: `${result.rows} rows restored${result.format === 'x-ui' ? ' from a 3x-ui database' : ''}; the previous database is kept at ${result.backup}${coreNote}; the panel restarts now`,
      severity: coreNote || result.skipped.length ? 'warning' : 'success',
    });
    this.d.panel.requestRestart(IMPORT_RESTART_DELAY_MS);
    return result;
  }

  /** `panel db import FILE`: the same replacement from a file on the host, without restarting anything. */
  async importDatabaseFile(path: string): Promise<ImportResult> {
    return this.replaceDatabase((opts) => this.d.store.backup.restoreFile(path, opts));
  }

  private async replaceDatabase(run: (opts: RestoreOptions) => Promise<RestoreResult>): Promise<ImportResult> {
    const host = this.host();
    let path = '';
    const result = await run({
      beforeReplace: async () => {
        path = await host.backupPath(`panel_before-import_${stamp(this.d.clock.now())}.db`);
        await this.d.store.backup.snapshotTo(path);
      },
      convertForeign: (db) => convertXui(db, { now: this.d.clock.now(), hashPassword }),
    });
    this.d.settings.invalidate();
    await this.d.afterImport?.();
    return { backup: path, ...result };
  }

  /** backuptotgbot: sends the database file to every admin chat id through the Telegram Bot API. */
  async backupToTelegram(): Promise<{ sent: string[] }> {
    const s = await this.d.settings.effective();
    const token = s.tgBotToken.trim();
    if (!token) throw new DomainError('tgBotToken: set the Telegram bot token first');
    const chats = s.tgBotChatId
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    if (chats.length === 0) throw new DomainError('tgBotChatId: set at least one admin chat id first');
    const api = (s.tgBotApiUrl || 'https://api.telegram.org').replace(/\/+$/, '');
    const { fileName, data } = await this.databaseFile();
    const sent: string[] = [];
    const failed: string[] = [];
    for (const chat of chats) {
      const form = multipartBody(
        { chat_id: chat, caption: `Panel database backup ${fileName}` },
        { field: 'document', fileName, contentType: 'application/octet-stream', data },
      );
      try {
        const res = await this.http().request({
          url: `${api}/bot${token}/sendDocument`,
          method: 'POST',
          headers: { 'content-type': form.contentType },
          body: form.body,
          timeoutMs: 60_000,
          maxBytes: 1024 * 1024,
        });
        let reply: { ok?: unknown; description?: unknown } = {};
        try {
          reply = JSON.parse(text(res));
        } catch {
          /* not JSON */
        }
        if (res.status === 200 && reply.ok === true) sent.push(chat);
        else
          failed.push(
            `${chat}: ${typeof reply.description === 'string' ? reply.description.slice(0, 200) : `HTTP ${res.status}`}`,
          );
      } catch (err) {
        failed.push(`${chat}: ${errMsg(err)}`);
      }
    }
    if (failed.length)
      throw new DomainError(
        `backup not delivered to ${failed.join('; ')}${sent.length ? ` (sent to ${sent.join(', ')})` : ''}`,
      );
    return { sent };
  }

  // ---- panel update ---------------------------------------------------------------------------------------------

  private get panelRepo(): string {
    return this.d.panelRepo || PANEL_REPO;
  }

  /** The panel's releases, newest first; the same cache and stale-on-error rules as the core versions. */
  private async panelVersions(): Promise<string[]> {
    const now = this.d.clock.now();
    if (this.panelReleases && now - this.panelReleases.at < CORE_VERSIONS_TTL_MS && now >= this.panelReleases.at)
      return this.panelReleases.list;
    try {
      const res = await this.http().request({
        url: `${(this.d.panelFeed?.api ?? this.githubApi).replace(/\/+$/, '')}/repos/${this.panelRepo}/releases?per_page=30`,
        headers: { accept: 'application/vnd.github+json' },
        timeoutMs: 10_000,
        maxBytes: MAX_RELEASE_LIST_BYTES,
        allowPrivate: this.d.panelFeedAllowPrivate,
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      const list = parseStableTags(JSON.parse(text(res)));
      this.panelReleases = { list, at: now };
      return list;
    } catch (err) {
      if (this.panelReleases) return this.panelReleases.list;
      throw new DomainError(`cannot fetch the panel releases of ${this.panelRepo}: ${errMsg(err)}`);
    }
  }

  /** getPanelUpdateInfo: the newest release of the panel's feed against the running version. */
  async panelUpdateInfo() {
    const current = this.d.panelVersion;
    const why = this.d.installer ? this.d.installer.unavailable() : PANEL_UPDATE_HELP;
    const last = this.d.installer ? await this.d.installer.lastResult().catch(() => null) : null;
    const latest = (await this.panelVersions())[0] ?? '';
    const updateAvailable = !!latest && compareVersions(latest, current) > 0;
    const message = !latest
      ? `no release published in ${this.panelRepo}`
      : !updateAvailable
        ? `${current} is the newest release`
        : why
          ? `${latest} is available; ${why}`
          : `${latest} is available`;
    return {
      currentVersion: current,
      latestVersion: latest,
      updateAvailable,
      selfUpdate: !why,
      message,
      lastUpdate: last,
    };
  }

  /**
   * updatePanel: downloads the newest release and its checksum, verifies, unpacks it beside the running one and
   * runs its migrations check, snapshots a file database, then hands over to the launcher, which restarts the
   * panel on it and rolls back when it is not healthy within 60 s.
   */
  async updatePanel(): Promise<{ from: string; to: string }> {
    const installer = this.d.installer;
    const why = installer ? installer.unavailable() : PANEL_UPDATE_HELP;
    if (!installer || why) throw new DomainError(why ?? PANEL_UPDATE_HELP);
    if (this.updating) throw new DomainError('a panel update is already running');
    this.updating = true;
    try {
      this.panelReleases = null; // decide on a fresh list
      const latest = (await this.panelVersions())[0];
      const from = this.d.panelVersion;
      if (!latest || compareVersions(latest, from) <= 0)
        throw new DomainError(`${from} is the newest release; nothing to update`);
      const version = latest.replace(/^v/, '');
      const asset = installer.assetName(version);
      const url = `${(this.d.panelFeed?.download ?? this.githubDownload).replace(/\/+$/, '')}/${this.panelRepo}/releases/download/${latest}/${asset}`;
      const archive = await this.downloadFeed(url, MAX_PANEL_ARCHIVE_BYTES, 300_000, `panel ${latest}`);
      const sum = await this.downloadFeed(`${url}.sha256`, 64 * 1024, 30_000, `panel ${latest} checksum`);
      let want: string;
      try {
        want = parseSha256Sum(new TextDecoder().decode(sum));
      } catch (err) {
        throw new DomainError(`panel ${latest}: ${errMsg(err)}`);
      }
      const got = hex(
        new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', archive as Uint8Array<ArrayBuffer>)),
      );
      if (got !== want)
        throw new DomainError(
          `panel ${latest}: the download does not match the published SHA-256 (expected ${want}, got ${got}); nothing was changed`,
        );
      let dir: string;
      try {
        ({ dir } = await installer.stage(version, archive));
      } catch (err) {
        throw new DomainError(`panel ${latest}: ${errMsg(err)}; nothing was changed`);
      }
      let dbSnapshot: string | null = null;
      // The launcher puts a snapshot back only into a file database (PostgreSQL: see decision 0051).
      if (this.d.store.dialect === 'sqlite' && this.d.host) {
        dbSnapshot = await this.d.host.backupPath(`panel_before-update-${version}_${stamp(this.d.clock.now())}.db`);
        await this.d.store.backup.snapshotTo(dbSnapshot);
      }
      this.d.events.emit('notification', {
        title: 'Panel update',
        body: `updating ${from} → ${version}; the panel restarts now`,
        severity: 'info',
      });
      await installer.handOver({ fromVersion: from, toVersion: version, dir, dbSnapshot });
      return { from, to: version };
    } finally {
      this.updating = false;
    }
  }

  private async downloadFeed(url: string, maxBytes: number, timeoutMs: number, what: string): Promise<Uint8Array> {
    let res: HttpResponse;
    try {
      res = await this.http().request({ url, maxBytes, timeoutMs, allowPrivate: this.d.panelFeedAllowPrivate });
    } catch (err) {
      throw new DomainError(`${what}: download failed: ${errMsg(err)}`);
    }
    if (res.status !== 200) throw new DomainError(`${what}: download failed: HTTP ${res.status}`);
    if (res.body.length === 0) throw new DomainError(`${what}: the download is empty`);
    return res.body;
  }

  /** POST /panel/setting/restartPanel: the panel restarts after a grace period (the answer gets out first). */
  restartPanel(): { inSeconds: number } {
    this.d.panel.requestRestart(RESTART_GRACE_MS);
    return { inSeconds: RESTART_GRACE_MS / 1000 };
  }
}
