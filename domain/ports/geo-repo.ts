// Storage port for custom geo sources (custom_geo), and the file port for their cached data files.
import type { GeoRecord, GeoWrite } from '../geo/model.js';

export interface GeoRepo {
  list(): Promise<GeoRecord[]>;
  byId(id: number): Promise<GeoRecord | null>;
  /** Null when (type, alias) is taken. */
  insert(row: GeoWrite): Promise<GeoRecord | null>;
  /** 'missing' when no such row, 'taken' when (type, alias) belongs to another row. */
  update(id: number, row: GeoWrite): Promise<GeoRecord | 'missing' | 'taken'>;
  setStatus(id: number, status: string, lastDownload?: number): Promise<boolean>;
  remove(id: number): Promise<boolean>;
}

/**
 * The folder the core reads geo files from ($PANEL_DATA_DIR/bin). Names are plain file names such as
 * `geoip_mylist.dat`, never paths.
 */
export interface GeoFileStore {
  /** Replaces the file atomically (write to a temporary name, then rename). */
  write(fileName: string, body: Uint8Array): Promise<void>;
  /** Deletes the file; false when it did not exist. */
  remove(fileName: string): Promise<boolean>;
  exists(fileName: string): Promise<boolean>;
}
