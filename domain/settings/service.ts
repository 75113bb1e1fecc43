// Settings use cases: the effective settings (defaults, then stored values, then environment overrides) and
// validated updates.
import type { Store } from '../ports/store.js';
import type { FileProbe } from '../ports/runtime.js';
import type { EventSink } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import {
  DEFAULT_SETTINGS,
  parseSetting,
  SETTING_KEYS,
  settingShapes,
  type SettingKey,
  type Settings,
} from './schema.js';

/** How long `effective()` may serve a cached value (another process, e.g. the CLI, may write in between). */
const CACHE_MS = 2000;

const isKey = (key: string): key is SettingKey => (SETTING_KEYS as string[]).includes(key);
const ANY_ADDRESS = new Set(['', '0.0.0.0', '::', '[::]']);

export class SettingsService {
  private cache: { at: number; value: Settings } | null = null;

  constructor(
    private store: Store,
    private files: FileProbe,
    private events: EventSink,
    /** Environment overrides (RUNTIME.md), applied on top of stored values while set. */
    readonly overrides: Partial<Settings> = {},
  ) {}

  /** Stored values over defaults, with environment overrides applied. Cached briefly; writes invalidate. */
  async effective(): Promise<Settings> {
    const now = Date.now(); // a cache lifetime, not a rule: the Clock port is not needed here
    if (this.cache && now - this.cache.at < CACHE_MS && now >= this.cache.at) return this.cache.value;
    const value = { ...(await this.stored()), ...this.overrides } as Settings;
    this.cache = { at: now, value };
    return value;
  }

  /** Stored values over defaults, without environment overrides (what `update` validates against). */
  async stored(): Promise<Settings> {
    const stored = await this.store.settings.all();
    const value = { ...DEFAULT_SETTINGS } as Record<string, unknown>;
    // A stored value that no longer passes its schema (an older version's data) falls back to the default.
    for (const key of SETTING_KEYS) {
      if (key in stored && settingShapes[key].safeParse(stored[key]).success) value[key] = stored[key];
    }
    return value as Settings;
  }

  /** The keys an environment variable currently overrides. */
  overriddenKeys(): SettingKey[] {
    return Object.keys(this.overrides).filter(isKey);
  }

  /** Drops the cached effective settings (after another writer changed them). */
  invalidate(): void {
    this.cache = null;
  }

  /**
   * Writes the keys of `input` (each already parsed by `settingsPatchBody` or `parseSetting`) in one transaction,
   * after checking them together. A key overridden by the environment is written only when its value differs from
   * the override (so saving the whole blob back does not copy environment values into the database).
   */
  async update(
    input: Partial<Settings>,
    opts: { storeOverridden?: boolean } = {},
  ): Promise<{ settings: Settings; changed: SettingKey[] }> {
    const current = await this.stored();
    const changes: Partial<Record<SettingKey, unknown>> = {};
    for (const key of SETTING_KEYS) {
      if (input[key] === undefined) continue;
      const value = input[key];
      if (!opts.storeOverridden && key in this.overrides && this.overrides[key] === value) continue;
      if (current[key] === value) continue;
      changes[key] = value;
    }
    const next = { ...current, ...changes } as Settings;
    await this.checkConsistency(next, changes);
    const changed = Object.keys(changes) as SettingKey[];
    if (changed.length > 0) {
      await this.store.settings.setMany(changes);
      this.cache = null;
      this.events.emit('settings.changed', { keys: changed });
    }
    return { settings: await this.effective(), changed };
  }

  /** One key, validated exactly as `update` validates it (the CLI's `set`); always stored, even when overridden. */
  async set(key: string, value: unknown): Promise<{ settings: Settings; changed: SettingKey[] }> {
    if (!isKey(key)) throw new DomainError(`${key}: unknown setting key`);
    const parsed = parseSetting(key, value);
    if (!parsed.ok) throw new DomainError(parsed.msg);
    return this.update({ [key]: parsed.value }, { storeOverridden: true });
  }

  /** Internal values (session secret…) that are not settings the operator edits; stored under `_key`. */
  async internal(key: string): Promise<unknown> {
    return this.store.settings.get(`_${key}`);
  }

  async setInternal(key: string, value: unknown): Promise<void> {
    await this.store.settings.setMany({ [`_${key}`]: value });
  }

  private async checkConsistency(next: Settings, changes: Partial<Record<SettingKey, unknown>>): Promise<void> {
    for (const [cert, key] of [
      ['webCertFile', 'webKeyFile'],
      ['subCertFile', 'subKeyFile'],
    ] as const) {
      if (!(cert in changes) && !(key in changes)) continue;
      const c = next[cert];
      const k = next[key];
      if (!!c !== !!k) throw new DomainError(`${c ? key : cert}: a certificate and its key must be set together`);
      for (const f of [cert, key] as const) {
        if (next[f] && !(await this.files.isReadableFile(next[f])))
          throw new DomainError(`${f}: file not found or not readable: ${next[f]}`);
      }
    }
    if (next.twoFactorEnable && !next.twoFactorToken)
      throw new DomainError('twoFactorToken: required when twoFactorEnable is true');
    // With the environment applied, the two listeners must not claim the same address and port.
    const eff = { ...next, ...this.overrides };
    const subListen = eff.subListen || eff.webListen;
    const sameAddress = subListen === eff.webListen || ANY_ADDRESS.has(subListen) || ANY_ADDRESS.has(eff.webListen);
    if (eff.subEnable && eff.subPort === eff.webPort && sameAddress) {
      throw new DomainError(
        `${'subPort' in changes ? 'subPort' : 'webPort'}: the subscription server and the panel cannot share port ${eff.webPort}`,
      );
    }
  }
}
