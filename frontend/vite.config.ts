import { defineConfig } from 'vitest/config';

// GATEHOUSE_DEV_TARGET points the dev server at a running `gatehouse serve`
// (e.g. http://127.0.0.1:7465). The daemon refuses foreign Origins, so the
// proxy rewrites Origin to the daemon's own.
const target = process.env.GATEHOUSE_DEV_TARGET ?? 'http://127.0.0.1:7465';

export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle; no runtime network calls beyond the API.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  server: {
    proxy: {
      '/api': {
        target,
        changeOrigin: true,
        configure: (proxy) => {
          proxy.on('proxyReq', (req) => req.setHeader('Origin', target));
        },
      },
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
