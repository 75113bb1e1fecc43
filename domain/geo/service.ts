// Use cases for custom geo sources: list, aliases, add/update (download first: nothing is saved when the file
// cannot be fetched), delete (with the cached file), re-download one or all (errors per source). Downloads go
// through the guarded HTTP port; a successful change restarts a running core so it loads the new file.
import type { Store } from '../ports/store.js';
import type { GeoFileStore } from '../ports/geo-repo.js';
import { HttpFetchError, type HttpClient } from '../ports/http.js';
import type { Clock } from '../shared/clock.js';
import { nowSeconds } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import {
  aliasProblem,
  BUILTIN_GEO_FILES,
  contentProblem,
  extensionOf,
  fileNameOf,
  GEO_TYPES,
  toGeoView,
  usageOf,
  type GeoAlias,
  type GeoInput,
  type GeoRecord,
  type GeoType,
  type GeoView,
} from './model.js';

export const GEO_DOWNLOAD_TIMEOUT_MS = 5 * 60_000;
export const GEO_MAX_BYTES = 128 * 1024 * 1024;

export interface GeoServiceOptions {
  /** Permit private/loopback source hosts (off by default; tests serve files on 127.0.0.1). */
  allowPrivate?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Restarts the core when it is running (new geo files load at start). */
  restartCore?: () => Promise<void>;
}

export interface UpdateAllResult {
  succeeded: { id: number; alias: string; fileName: string }[];
  failed: { id: number; alias: string; fileName: string; error: string }[];
}

export class GeoService {
  constructor(
    private store: Store,
    private http: HttpClient,
    private files: GeoFileStore | null,
    private clock: Clock,
    private opts: GeoServiceOptions = {},
  ) {}

  private mustFiles(): GeoFileStore {
    if (!this.files) throw new DomainError('geo file storage is not available in this process');
    return this.files;
  }

  private async mustGet(id: number): Promise<GeoRecord> {
    const r = await this.store.geo.byId(id);
    if (!r) throw new DomainError(`custom geo source ${id} not found`, 'not_found');
    return r;
  }

  private async restart(): Promise<void> {
    try {
      await this.opts.restartCore?.();
    } catch {
      // The core's own state/error reporting covers a failed restart; the geo change itself is done.
    }
  }

  async list(): Promise<GeoView[]> {
    return (await this.store.geo.list()).map(toGeoView);
  }

  /** Aliases usable in routing rules: the built-in files, then the configured sources, grouped by type. */
  async aliases(): Promise<Record<GeoType, GeoAlias[]>> {
    const out = Object.fromEntries(GEO_TYPES.map((t) => [t, [] as GeoAlias[]])) as Record<GeoType, GeoAlias[]>;
    for (const b of BUILTIN_GEO_FILES) {
      const main = b.fileName === `${b.type}.dat`;
      out[b.type].push({
        alias: b.alias,
        type: b.type,
        fileName: b.fileName,
        builtin: true,
        usage: main ? `${b.type}:<tag>` : usageOf(b.fileName),
      });
    }
    for (const r of await this.store.geo.list()) {
      const fileName = fileNameOf(r);
      out[r.type].push({ alias: r.alias, type: r.type, fileName, builtin: false, usage: usageOf(fileName) });
    }
    return out;
  }

  /** Fetches and checks a source; returns the body or throws a DomainError naming the cause. */
  private async fetchSource(url: string): Promise<Uint8Array> {
    let res;
    try {
      res = await this.http.request({
        url,
        method: 'GET',
        headers: { accept: '*/*' },
        maxRedirects: 5,
        timeoutMs: this.opts.timeoutMs ?? GEO_DOWNLOAD_TIMEOUT_MS,
        maxBytes: this.opts.maxBytes ?? GEO_MAX_BYTES,
        allowPrivate: this.opts.allowPrivate ?? false,
      });
    } catch (err) {
      throw new DomainError(`download failed: ${err instanceof HttpFetchError ? err.message : String(err)}`);
    }
    if (res.status !== 200) throw new DomainError(`download failed: HTTP ${res.status} from ${new URL(res.url).host}`);
    const problem = contentProblem(res.body, extensionOf(url));
    if (problem) throw new DomainError(`download failed: ${problem}`);
    return res.body;
  }

  private checkAlias(input: GeoInput): void {
    const p = aliasProblem(input.type, input.alias);
    if (p) throw new DomainError(p);
  }

  /** Downloads the file, then saves the source. Nothing is saved when the download fails. */
  async add(input: GeoInput): Promise<GeoView> {
    this.checkAlias(input);
    const files = this.mustFiles();
    if ((await this.store.geo.list()).some((r) => r.type === input.type && r.alias === input.alias)) {
      throw new DomainError(`alias: a ${input.type} source named '${input.alias}' already exists`, 'conflict');
    }
    const body = await this.fetchSource(input.url);
    const now = nowSeconds(this.clock);
    const row = await this.store.geo.insert({
      type: input.type,
      alias: input.alias,
      url: input.url,
      status: 'ok',
      lastDownload: now,
    });
    if (!row) throw new DomainError(`alias: a ${input.type} source named '${input.alias}' already exists`, 'conflict');
    try {
      await files.write(fileNameOf(row), body);
    } catch (err) {
      await this.store.geo.remove(row.id);
      throw new DomainError(`saving ${fileNameOf(row)} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    await this.restart();
    return toGeoView(row);
  }

  /** Replaces type, alias and url. A changed url or file name is downloaded first; the old file is removed. */
  async update(id: number, input: GeoInput): Promise<GeoView> {
    this.checkAlias(input);
    const cur = await this.mustGet(id);
    const files = this.mustFiles();
    if ((await this.store.geo.list()).some((r) => r.id !== id && r.type === input.type && r.alias === input.alias)) {
      throw new DomainError(`alias: a ${input.type} source named '${input.alias}' already exists`, 'conflict');
    }
    if (cur.type === input.type && cur.alias === input.alias && cur.url === input.url) return toGeoView(cur);
    const oldFile = fileNameOf(cur);
    const newFile = fileNameOf(input);
    const body = await this.fetchSource(input.url);
    const saved = await this.store.geo.update(id, {
      type: input.type,
      alias: input.alias,
      url: input.url,
      status: 'ok',
      lastDownload: nowSeconds(this.clock),
    });
    if (saved === 'missing') throw new DomainError(`custom geo source ${id} not found`, 'not_found');
    if (saved === 'taken')
      throw new DomainError(`alias: a ${input.type} source named '${input.alias}' already exists`, 'conflict');
    await files.write(newFile, body);
    if (oldFile !== newFile) await files.remove(oldFile);
    await this.restart();
    return toGeoView(saved);
  }

  async remove(id: number): Promise<{ fileName: string; fileRemoved: boolean }> {
    const cur = await this.mustGet(id);
    const files = this.mustFiles();
    if (!(await this.store.geo.remove(id))) throw new DomainError(`custom geo source ${id} not found`, 'not_found');
    const fileName = fileNameOf(cur);
    const fileRemoved = await files.remove(fileName);
    await this.restart();
    return { fileName, fileRemoved };
  }

  private async refresh(r: GeoRecord): Promise<void> {
    const files = this.mustFiles();
    let body: Uint8Array;
    try {
      body = await this.fetchSource(r.url);
      await files.write(fileNameOf(r), body);
    } catch (err) {
      const msg = err instanceof Error ? err.message.replace(/^download failed: /, '') : String(err);
      await this.store.geo.setStatus(r.id, `error: ${msg.slice(0, 500)}`);
      throw new DomainError(`download failed: ${msg}`);
    }
    await this.store.geo.setStatus(r.id, 'ok', nowSeconds(this.clock));
  }

  /** Re-downloads one source; on failure the source keeps its old file and records the error. */
  async download(id: number): Promise<GeoView> {
    const r = await this.mustGet(id);
    await this.refresh(r);
    await this.restart();
    return toGeoView(await this.mustGet(id));
  }

  /** Re-downloads every source; never fails as a whole. One core restart when anything changed. */
  async updateAll(): Promise<UpdateAllResult> {
    const res: UpdateAllResult = { succeeded: [], failed: [] };
    for (const r of await this.store.geo.list()) {
      const fileName = fileNameOf(r);
      try {
        await this.refresh(r);
        res.succeeded.push({ id: r.id, alias: r.alias, fileName });
      } catch (err) {
        res.failed.push({
          id: r.id,
          alias: r.alias,
          fileName,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    if (res.succeeded.length) await this.restart();
    return res;
  }
}
