// Storage ports for the admin user, settings and API tokens.

export interface UserRow {
  id: number;
  username: string;
  passwordHash: string;
  sessionVersion: number;
}

export interface UsersRepo {
  first(): Promise<UserRow | null>;
  byId(id: number): Promise<UserRow | null>;
  create(username: string, passwordHash: string): Promise<UserRow>;
  /** Sets the credential and bumps the session version (every session is invalidated). */
  setCredential(id: number, username: string, passwordHash: string): Promise<UserRow>;
}

export interface SettingsRepo {
  /** Every stored key with its JSON-decoded value. */
  all(): Promise<Record<string, unknown>>;
  get(key: string): Promise<unknown | undefined>;
  /** Writes several keys at once (one transaction). */
  setMany(values: Record<string, unknown>): Promise<void>;
}

export interface ApiTokenRow {
  id: number;
  name: string;
  token: string;
  enabled: boolean;
  /** Unix seconds. */
  createdAt: number;
}

export interface TokensRepo {
  list(): Promise<ApiTokenRow[]>;
  byToken(token: string): Promise<ApiTokenRow | null>;
  byName(name: string): Promise<ApiTokenRow | null>;
  /** Returns null when the name is taken. */
  create(row: Omit<ApiTokenRow, 'id'>): Promise<ApiTokenRow | null>;
  remove(id: number): Promise<boolean>;
  setEnabled(id: number, enabled: boolean): Promise<boolean>;
}
