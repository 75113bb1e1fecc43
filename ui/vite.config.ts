// Builds the browser UI into dist/ui: two entries (login, app) sharing one chunk, hashed file names, asset
// URLs behind a placeholder the panel replaces with its web base path (any base path, no rebuild).
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/__PANEL_BASE__/',
  logLevel: 'warn',
  // Chunks find each other relative to themselves, never through the base placeholder.
  experimental: {
    renderBuiltUrl: (_file: string, { hostType }: { hostType: string }) =>
      hostType === 'js' ? { relative: true } : undefined,
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    reportCompressedSize: false,
    rollupOptions: {
      input: { login: `${root}login.html`, app: `${root}app.html` },
    },
  },
});
