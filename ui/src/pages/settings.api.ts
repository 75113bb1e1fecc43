// The settings page's calls: the settings blob, the admin credential, panel restart, API tokens, two-factor
// enrolment and the Telegram backup.
import { call } from '../api';
import type { Settings } from '../../../domain/settings/schema.js';

export type { Settings };

export interface ApiToken {
  id: number;
  name: string;
  token: string;
  enabled: boolean;
  createdAt: number;
}

export const settingsApi = {
  all: () => call<Settings>('POST', 'panel/setting/all'),
  overridden: () => call<string[]>('GET', 'panel/setting/overridden'),
  update: (patch: Partial<Settings>) => call<Settings>('POST', 'panel/setting/update', patch),
  updateUser: (body: { oldUsername: string; oldPassword: string; newUsername: string; newPassword: string }) =>
    call<null>('POST', 'panel/setting/updateUser', body),
  restartPanel: () => call<null>('POST', 'panel/setting/restartPanel'),

  tokens: () => call<ApiToken[]>('GET', 'panel/setting/apiTokens'),
  createToken: (name: string) => call<ApiToken>('POST', 'panel/setting/apiTokens/create', { name }),
  deleteToken: (id: number) => call<null>('POST', `panel/setting/apiTokens/delete/${id}`),
  setTokenEnabled: (id: number, enabled: boolean) =>
    call<null>('POST', `panel/setting/apiTokens/setEnabled/${id}`, { enabled }),

  enableTwoFactor: (secret: string, code: string) =>
    call<null>('POST', 'panel/setting/twoFactor/enable', { secret, code }),
  disableTwoFactor: (code: string) => call<null>('POST', 'panel/setting/twoFactor/disable', { code }),

  backupToTelegram: () => call<{ sent: string[] }>('POST', 'panel/api/backuptotgbot'),
};
