// API tokens: server-generated (48 random alphanumerics from Web Crypto), stored and returned in plain form.
import type { Store } from '../ports/store.js';
import type { ApiTokenRow } from '../ports/auth-repo.js';
import type { Clock } from '../shared/clock.js';
import { nowSeconds } from '../shared/clock.js';
import type { EventSink } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import { randomAlnum } from '../shared/random.js';

export const TOKEN_LENGTH = 48;
export class TokensService {
  constructor(
    private store: Store,
    private clock: Clock,
    private events: EventSink,
  ) {}

  list(): Promise<ApiTokenRow[]> {
    return this.store.tokens.list();
  }

  /** `name` is parsed by `tokenName` (domain/tokens/input.ts) at the route or in the CLI. */
  async create(name: string): Promise<ApiTokenRow> {
    const row = await this.store.tokens.create({
      name,
      token: randomAlnum(TOKEN_LENGTH),
      enabled: true,
      createdAt: nowSeconds(this.clock),
    });
    if (!row) throw new DomainError(`a token with the name "${name}" already exists`);
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
