// Use cases for remote nodes: CRUD, enable/pause, probes (saved or not), the heartbeat over enabled nodes and the
// per-node cpu/mem history rings those probes fill.
import type { Store } from '../ports/store.js';
import type { HttpClient } from '../ports/http.js';
import type { Clock } from '../shared/clock.js';
import { nowSeconds } from '../shared/clock.js';
import type { EventSink } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import { ONLINE_WINDOW_SECONDS } from '../clients/rules.js';
import { aggregate, Ring } from '../status/rings.js';
import { HISTORY_WINDOW_S, type HistorySample } from '../status/model.js';
import {
  emptyRollup,
  toView,
  unknownHealth,
  type NodeHealth,
  type NodeInput,
  type NodeMetric,
  type NodeRecord,
  type NodeTestInput,
  type NodeView,
  type NodeWrite,
  type ProbeResult,
} from './model.js';
import { probeNode } from './remote.js';

/** The heartbeat period (also the node adapter's job interval). */
export const HEARTBEAT_INTERVAL_MS = 30_000;
/** Probes running at once during a heartbeat. */
export const HEARTBEAT_CONCURRENCY = 8;
/** Samples older than the history window are pruned at most this often. */
const PRUNE_EVERY_S = 600;

export class NodesService {
  private lastPrune = 0;
  private heartbeatRunning: Promise<{ probed: number; online: number }> | null = null;

  constructor(
    private store: Store,
    private http: HttpClient,
    private clock: Clock,
    private events: EventSink,
    /** Operator warnings (a node with TLS verification off). */
    private warn?: (msg: string, fields?: Record<string, unknown>) => void,
  ) {}

  private changed(ids: number[], action: string): void {
    this.events.emit('nodes.changed', { ids, action });
  }

  private async mustGet(id: number): Promise<NodeRecord> {
    const n = await this.store.nodes.byId(id);
    if (!n) throw new DomainError(`node ${id} not found`, 'not_found');
    return n;
  }

  private async assertNameFree(name: string, exceptId?: number): Promise<void> {
    const lower = name.toLowerCase();
    const clash = (await this.store.nodes.list()).find((n) => n.id !== exceptId && n.name.toLowerCase() === lower);
    if (clash) throw new DomainError(`name: a node named '${clash.name}' already exists (id ${clash.id})`, 'conflict');
  }

  // ---- reads -----------------------------------------------------------------------------------------------------

  async list(): Promise<NodeView[]> {
    const [rows, rollups] = await Promise.all([
      this.store.nodes.list(),
      this.store.nodes.rollups(nowSeconds(this.clock) - ONLINE_WINDOW_SECONDS),
    ]);
    return rows.map((n) => toView(n, rollups.get(n.id) ?? emptyRollup()));
  }

  async get(id: number): Promise<NodeView> {
    const n = await this.mustGet(id);
    const rollups = await this.store.nodes.rollups(nowSeconds(this.clock) - ONLINE_WINDOW_SECONDS);
    return toView(n, rollups.get(id) ?? emptyRollup());
  }

  /** Samples of `metric` (cpu or mem, percent) for one node, in buckets of `bucket` seconds over about 6 hours. */
  async history(id: number, metric: NodeMetric, bucket: number): Promise<HistorySample[]> {
    await this.mustGet(id);
    // Samples are stored (node_samples), so the history survives a restart like the host's own.
    const now = nowSeconds(this.clock);
    const rows = await this.store.nodeSync.samples(id, now - HISTORY_WINDOW_S);
    const ring = new Ring(Math.max(rows.length, 1));
    for (const r of rows) ring.push(r.t, metric === 'cpu' ? r.cpu : r.mem);
    return aggregate(ring, bucket, now);
  }

  // ---- writes ----------------------------------------------------------------------------------------------------

  async add(input: NodeInput): Promise<NodeView> {
    const row: NodeWrite = {
      name: input.name,
      remark: input.remark ?? '',
      scheme: input.scheme ?? 'https',
      address: input.address,
      port: input.port,
      basePath: input.basePath ?? '/',
      apiToken: input.clearApiToken ? '' : (input.apiToken ?? ''),
      enable: input.enable ?? true,
      allowPrivateAddress: input.allowPrivateAddress ?? false,
      tlsMode: input.tlsMode ?? 'verify',
      tlsPin: input.tlsPin ?? '',
    };
    this.checkTls(row);
    if (row.enable && !row.apiToken)
      throw new DomainError("apiToken: is required for an enabled node (the remote panel's API token)");
    await this.assertNameFree(row.name);
    const created = await this.store.nodes.insert(row, nowSeconds(this.clock));
    this.changed([created.id], 'add');
    return toView(created, emptyRollup());
  }

  /**
   * Replaces the connection fields (name, address and port are required; other omitted fields keep their stored
   * values). An omitted or empty apiToken keeps the stored token; clearApiToken: true removes it.
   */
  async update(id: number, input: NodeInput): Promise<NodeView> {
    const cur = await this.mustGet(id);
    const apiToken = input.clearApiToken ? '' : input.apiToken ? input.apiToken : cur.apiToken;
    const row: NodeWrite = {
      name: input.name,
      remark: input.remark ?? cur.remark,
      scheme: input.scheme ?? cur.scheme,
      address: input.address,
      port: input.port,
      basePath: input.basePath ?? cur.basePath,
      apiToken,
      enable: input.enable ?? cur.enable,
      allowPrivateAddress: input.allowPrivateAddress ?? cur.allowPrivateAddress,
      tlsMode: input.tlsMode ?? cur.tlsMode,
      tlsPin: input.tlsPin ?? cur.tlsPin,
    };
    this.checkTls(row);
    if (row.enable && !row.apiToken)
      throw new DomainError("apiToken: is required for an enabled node (the remote panel's API token)");
    await this.assertNameFree(row.name, id);
    const retarget =
      row.scheme !== cur.scheme ||
      row.address !== cur.address ||
      row.port !== cur.port ||
      row.basePath !== cur.basePath ||
      row.apiToken !== cur.apiToken ||
      row.allowPrivateAddress !== cur.allowPrivateAddress ||
      row.tlsMode !== cur.tlsMode ||
      row.tlsPin !== cur.tlsPin;
    const saved = await this.store.nodes.update(
      id,
      row,
      nowSeconds(this.clock),
      retarget ? unknownHealth() : undefined,
    );
    if (!saved) throw new DomainError(`node ${id} not found`, 'not_found');
    if (retarget) await this.store.nodeSync.dropSamples(id);
    this.changed([id], retarget ? 'retarget' : 'update');
    return this.get(id);
  }

  /** Deletes the node. Inbounds bound to it keep their nodeId (they are not migrated). */
  async remove(id: number): Promise<void> {
    if (!(await this.store.nodes.remove(id))) throw new DomainError(`node ${id} not found`, 'not_found');
    this.changed([id], 'del');
  }

  /** A pin needs a key to pin; skipping verification is allowed but said out loud. */
  private checkTls(row: NodeWrite): void {
    if (row.scheme !== 'https') return;
    if (row.tlsMode === 'pin' && !row.tlsPin) {
      throw new DomainError(
        'tlsPin: is required with tlsMode pin (the sha256/... value /nodes/test shows for the node)',
      );
    }
    if (row.tlsMode === 'skip')
      this.warn?.('node TLS verification is off: its certificate is not checked', {
        node: row.name,
        address: row.address,
      });
  }

  async setEnable(id: number, enable: boolean): Promise<void> {
    const cur = await this.mustGet(id);
    if (enable && !cur.apiToken)
      throw new DomainError(`node ${id} has no apiToken; set one with /update/${id} before enabling it`);
    await this.store.nodes.setEnable(id, enable, nowSeconds(this.clock));
    if (cur.enable !== enable) this.changed([id], enable ? 'enable' : 'disable');
  }

  // ---- probes ----------------------------------------------------------------------------------------------------

  /** Probes connection details without saving anything. */
  test(input: NodeTestInput): Promise<ProbeResult> {
    return probeNode(this.http, {
      scheme: input.scheme ?? 'https',
      address: input.address,
      port: input.port,
      basePath: input.basePath ?? '/',
      apiToken: input.apiToken ?? '',
      allowPrivateAddress: input.allowPrivateAddress ?? false,
      tlsMode: input.tlsMode ?? 'verify',
      tlsPin: input.tlsPin ?? '',
    });
  }

  /** Probes a saved node and caches the result on its record (and in its history when online). */
  async probe(id: number): Promise<ProbeResult> {
    const n = await this.mustGet(id);
    const result = await this.probeAndSave(n);
    if (!result) throw new DomainError(`node ${id} was deleted during the probe`, 'not_found');
    return result;
  }

  private async probeAndSave(n: NodeRecord): Promise<ProbeResult | null> {
    const result = await probeNode(this.http, n);
    const t = nowSeconds(this.clock);
    const health: NodeHealth = {
      status: result.status,
      // lastHeartbeat is the time of the last successful contact; a failed probe keeps the previous one.
      lastHeartbeat: result.status === 'online' ? t : n.lastHeartbeat,
      latencyMs: result.latencyMs,
      coreVersion: result.status === 'online' ? result.coreVersion : n.coreVersion,
      panelVersion: result.status === 'online' ? result.panelVersion : n.panelVersion,
      cpuPct: result.cpuPct,
      memPct: result.memPct,
      uptimeSecs: result.uptimeSecs,
      lastError: result.error.slice(0, 1000),
    };
    if (!(await this.store.nodes.saveHealth(n.id, health))) return null;
    if (result.status === 'online') {
      try {
        await this.store.nodeSync.addSample(n.id, { t, cpu: result.cpuPct, mem: result.memPct });
      } catch {
        return null; // deleted between the health write and the sample
      }
      if (t - this.lastPrune >= PRUNE_EVERY_S) {
        this.lastPrune = t;
        await this.store.nodeSync.pruneSamples(t - HISTORY_WINDOW_S);
      }
    }
    // Coming (back) online is its own action: the pusher reconciles the node then.
    if (n.status !== result.status) this.changed([n.id], result.status === 'online' ? 'online' : 'status');
    return result;
  }

  /** Probes every enabled node (at most HEARTBEAT_CONCURRENCY at once). Overlapping calls share one run. */
  heartbeat(): Promise<{ probed: number; online: number }> {
    if (!this.heartbeatRunning) {
      this.heartbeatRunning = this.runHeartbeat().finally(() => {
        this.heartbeatRunning = null;
      });
    }
    return this.heartbeatRunning;
  }

  private async runHeartbeat(): Promise<{ probed: number; online: number }> {
    const targets = (await this.store.nodes.list()).filter((n) => n.enable);
    let next = 0;
    let online = 0;
    const worker = async () => {
      while (next < targets.length) {
        const n = targets[next++]!;
        const r = await this.probeAndSave(n);
        if (r?.status === 'online') online++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(HEARTBEAT_CONCURRENCY, targets.length) }, worker));
    return { probed: targets.length, online };
  }
}
