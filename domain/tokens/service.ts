// API tokens: server-generated (48 random alphanumerics from Web Crypto), stored and returned in plain form.
import { z } from 'zod';
import type { Store } from '../ports/store.js';
import type { ApiTokenRow } from '../ports/auth-store.js';
import type { Clock } from '../shared/clock.js';
import { nowSeconds } from '../shared/clock.js';
import type { EventSink } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import { randomAlnum } from '../shared/random.js';
import { describeZodError } from '../shared/zod-error.js';
import { boolish } from '../clients/input.js';

export const TOKEN_LENGTH = 48;
export const tokenName = z.string().trim().min(1, 'must be 1 to 64 characters').max(64, 'must be 1 to 64 characters');
export const tokenNameBody = z.object({ name: tokenName });
export const setEnabledBody = z.object({ enabled: boolish });

export const apiTokenObj = z.object({
  id: z.number(),
  name: z.string(),
  token: z.string(),
  enabled: z.boolean(),
  createdAt: z.number().meta({ description: 'Unix seconds' }),
});

export class TokensService {
  constructor(
    private store: Store,
    private clock: Clock,
    private events: EventSink,
  ) {}

  list(): Promise<ApiTokenRow[]> {
    return this.store.tokens.list();
  }

  async create(name: string): Promise<ApiTokenRow> {
    // The API route parsed it already; the CLI passes its argument as typed.
    const parsed = tokenName.safeParse(name);
    if (!parsed.success) throw new DomainError(describeZodError(parsed.error, 'name'));
    const row = await this.store.tokens.create({
      name: parsed.data,
      token: randomAlnum(TOKEN_LENGTH),
      enabled: true,
      createdAt: nowSeconds(this.clock),
    });
    if (!row) throw new DomainError(`a token with the name "${parsed.data}" already exists`);
    this.events.emit('tokens.changed', { action: 'create' });
    return row;
  }

  async remove(id: number): Promise<void> {
    if (!(await this.store.tokens.remove(id))) throw new DomainError(`token ${id} not found`);
    this.events.emit('tokens.changed', { action: 'delete' });
  }

  async setEnabled(id: number, enabled: boolean): Promise<void> {
    if (!(await this.store.tokens.setEnabled(id, enabled))) throw new DomainError(`token ${id} not found`);
    this.events.emit('tokens.changed', { action: enabled ? 'enable' : 'disable' });
  }

  /** Looked up on every request, so a disabled or deleted token fails on the very next one. */
  async authenticate(token: string): Promise<boolean> {
    if (token.length < 16) return false;
    const row = await this.store.tokens.byToken(token);
    return !!row && row.enabled;
  }
}
