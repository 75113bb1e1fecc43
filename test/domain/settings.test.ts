import { describe, expect, it } from 'vitest';
import {
  coerceSetting,
  DEFAULT_SETTINGS,
  normaliseBasePath,
  parseSetting,
  SETTING_KEYS,
  settingShapes,
} from '../../domain/settings/schema.js';

describe('setting schemas', () => {
  it('every RUNTIME.md key has a schema and a valid default', () => {
    const runtimeKeys = [
      'webListen',
      'webPort',
      'webBasePath',
      'webCertFile',
      'webKeyFile',
      'sessionMaxAge',
      'timeLocation',
      'trustedProxyCIDRs',
      'expireDiff',
      'trafficDiff',
      'restartCoreOnClientDisable',
      'ipLimitEnable',
      'subEnable',
      'subListen',
      'subPort',
      'subPath',
      'subDomain',
      'subCertFile',
      'subKeyFile',
      'subURI',
      'subUpdates',
      'subEncrypt',
      'subShowInfo',
      'subTitle',
      'subSupportUrl',
      'subProfileUrl',
      'subAnnounce',
      'subEnableRouting',
      'subRoutingRules',
      'subJsonEnable',
      'subJsonPath',
      'subClashEnable',
      'subClashPath',
      'tgBotEnable',
      'tgBotToken',
      'tgBotChatId',
      'tgBotApiUrl',
      'twoFactorEnable',
      'twoFactorToken',
    ];
    for (const k of runtimeKeys) expect(SETTING_KEYS).toContain(k);
    for (const k of SETTING_KEYS) expect(settingShapes[k].safeParse(DEFAULT_SETTINGS[k]).success, k).toBe(true);
    expect(DEFAULT_SETTINGS).toMatchObject({
      webPort: 2053,
      subPort: 10882,
      sessionMaxAge: 360,
      webBasePath: '/',
      trustedProxyCIDRs: '127.0.0.1/32,::1/128',
    });
  });

  it.each([
    ['webPort', 443, 443],
    ['webPort', '8443', 8443],
    ['subPort', 65535, 65535],
    ['webBasePath', 'panel', '/panel/'],
    ['webBasePath', '/a/b', '/a/b/'],
    ['webBasePath', '//x//', '/x/'],
    ['subPath', '/sub/', '/sub/'],
    ['webListen', '', ''],
    ['webListen', '127.0.0.1', '127.0.0.1'],
    ['webListen', '::1', '::1'],
    ['webListen', 'panel.example.com', 'panel.example.com'],
    ['subEnable', 'false', false],
    ['subEnable', true, true],
    ['trustedProxyCIDRs', '10.0.0.0/8, fd00::/8', '10.0.0.0/8, fd00::/8'],
    ['trustedProxyCIDRs', '', ''],
    ['timeLocation', 'Europe/Berlin', 'Europe/Berlin'],
    ['twoFactorToken', 'jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'],
    ['tgBotChatId', '123,-456', '123,-456'],
    ['subURI', 'https://sub.example.com/sub/', 'https://sub.example.com/sub/'],
  ] as const)('%s accepts %j as %j', (key, input, expected) => {
    const r = parseSetting(key, input);
    expect(r).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['webPort', 0],
    ['webPort', 65536],
    ['webPort', '80a'],
    ['webPort', 1.5],
    ['webPort', true],
    ['webBasePath', '/a b/'],
    ['webBasePath', '/../'],
    ['webBasePath', '/x?y/'],
    ['webBasePath', 5],
    ['webListen', 'not an address!'],
    ['subEnable', 'yes'],
    ['subEnable', 1],
    ['trustedProxyCIDRs', '10.0.0.0/33'],
    ['trustedProxyCIDRs', 'everyone'],
    ['timeLocation', 'Mars/Olympus'],
    ['twoFactorToken', 'SHORT'],
    ['twoFactorToken', '0189018901890189018901890189'],
    ['tgBotChatId', 'abc'],
    ['subURI', 'ftp://x'],
    ['sessionMaxAge', 0],
    ['subDomain', 'bad domain'],
  ] as const)('%s rejects %j with a message naming the key', (key, input) => {
    const r = parseSetting(key, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.msg.startsWith(`${key}: `)).toBe(true);
  });

  it('normalises base paths', () => {
    expect(normaliseBasePath('')).toBe('/');
    expect(normaliseBasePath(' x ')).toBe('/x/');
    expect(coerceSetting('webPort', ' 80 ')).toBe(80);
  });
});
