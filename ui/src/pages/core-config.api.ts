// The core configuration page's calls: the template (/panel/core), outbound probes and counters, the running
// config, core versions, geo files and custom geo sources.
import { call, type StatusSnapshot } from '../api';

export interface CoreSettings {
  coreSetting: string;
  inboundTags: string;
  clientReverseTags: string;
  outboundTestUrl: string;
}
export interface OutboundProbe {
  success: boolean;
  delay: number;
  error: string;
}
export interface OutboundTraffic {
  tag: string;
  up: number;
  down: number;
  total: number;
}
export interface GeoSource {
  id: number;
  type: 'geoip' | 'geosite';
  alias: string;
  url: string;
  status: 'pending' | 'ok' | 'error';
  error: string;
  lastDownload: number;
  fileName: string;
  usage: string;
}
export interface GeoAlias {
  alias: string;
  type: 'geoip' | 'geosite';
  fileName: string;
  builtin: boolean;
  usage: string;
}
export interface GeoInput {
  type: 'geoip' | 'geosite';
  alias: string;
  url: string;
}
type GeoFileRef = { id: number; alias: string; fileName: string };

export const coreApi = {
  settings: () => call<CoreSettings>('POST', 'panel/core'),
  save: (coreSetting: string, outboundTestUrl: string) =>
    call<null>('POST', 'panel/core/update', { coreSetting, outboundTestUrl }),
  defaultTemplate: () => call<Record<string, unknown>>('GET', 'panel/core/getDefaultJsonConfig'),
  testOutbound: (outbound: unknown, allOutbounds: unknown[]) =>
    call<OutboundProbe>('POST', 'panel/core/testOutbound', {
      outbound: JSON.stringify(outbound),
      allOutbounds: JSON.stringify(allOutbounds),
    }),
  traffic: () => call<OutboundTraffic[] | null>('GET', 'panel/core/getOutboundsTraffic'),
  resetTraffic: (tag: string) => call<{ affected: number }>('POST', 'panel/core/resetOutboundsTraffic', { tag }),
  status: () => call<StatusSnapshot>('GET', 'panel/api/server/status'),
  runningConfig: () => call<Record<string, unknown>>('GET', 'panel/api/server/getConfigJson'),
  coreVersions: () => call<string[]>('GET', 'panel/api/server/getCoreVersion'),
  installCore: (version: string) =>
    call<{ version: string; path: string; restarted: boolean; note?: string }>(
      'POST',
      `panel/api/server/installCore/${encodeURIComponent(version)}`,
    ),
  updateGeofile: (fileName: string) =>
    call<{ updated: string[]; restarted: boolean }>(
      'POST',
      'panel/api/server/updateGeofile',
      fileName ? { fileName } : {},
    ),

  geoList: () => call<GeoSource[]>('GET', 'panel/api/custom-geo/list'),
  geoAliases: () => call<{ geoip: GeoAlias[]; geosite: GeoAlias[] }>('GET', 'panel/api/custom-geo/aliases'),
  geoAdd: (input: GeoInput) => call<GeoSource>('POST', 'panel/api/custom-geo/add', input),
  geoUpdate: (id: number, input: GeoInput) => call<GeoSource>('POST', `panel/api/custom-geo/update/${id}`, input),
  geoDelete: (id: number) =>
    call<{ fileName: string; fileRemoved: boolean }>('POST', `panel/api/custom-geo/delete/${id}`),
  geoDownload: (id: number) => call<GeoSource>('POST', `panel/api/custom-geo/download/${id}`),
  geoUpdateAll: () =>
    call<{ succeeded: GeoFileRef[]; failed: (GeoFileRef & { error: string })[] }>(
      'POST',
      'panel/api/custom-geo/update-all',
    ),
};

/** The geo files the server may download again (the names updateGeofile accepts). */
export const GEO_FILE_NAMES = [
  'geoip.dat',
  'geosite.dat',
  'geoip_IR.dat',
  'geosite_IR.dat',
  'geoip_RU.dat',
  'geosite_RU.dat',
];
