// What the provider integrations need from the rest of the domain (the settings and core services satisfy it).
import type { Json } from '../inbounds/model.js';
import type { CoreStatus } from '../ports/core.js';

export interface ProviderSettings {
  internal(key: string): Promise<unknown>;
  setInternal(key: string, value: unknown): Promise<void>;
}

export interface ProviderCore {
  status(): CoreStatus;
  template(): Promise<Json>;
  editTemplate<T>(
    edit: (template: Json) => { template: Json; result: T } | null,
  ): Promise<{ changed: boolean; restarted: boolean; result?: T }>;
}
