// Files of the API reference page's renderer, read by the adapter's host (the handlers serve them).
export interface DocsAssets {
  /** The file's bytes, or null when the runtime has no such file. */
  read(file: string): Promise<Uint8Array | null>;
}

/** A runtime without the renderer's files (the reference page then loads without them). */
export const noDocsAssets: DocsAssets = { read: async () => null };
