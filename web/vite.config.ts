import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The explorer builds into the package's `dist/web`, which `kgrag serve` serves at `/`. Everything is bundled (no
 * CDN, no web fonts): the explorer must work on a machine without internet.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  // `npx vite web` serves the explorer with hot reload; API calls go to a running `kgrag serve` (KGRAG_URL).
  server: { proxy: { '/v1': process.env.KGRAG_URL ?? 'http://127.0.0.1:8080' } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1000,
  },
});
