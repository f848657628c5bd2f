import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = (specUrl: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Accounts-payable API</title>
  <link rel="icon" href="docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/assets/init.js" data-spec="${specUrl}"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: document.currentScript.dataset.spec, dom_id: '#docs', deepLinking: true, tryItOutEnabled: false });`;

/** The OpenAPI document and a human docs page beside it, served from npm packages (no CDN). */
export function mountDocs(router: Router, openApi: () => unknown): void {
  router.get('/openapi.json', (ctx) => {
    ctx.set('cache-control', 'no-cache');
    ctx.body = openApi();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page('openapi.json');
  });
  router.get('/docs/assets/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/assets/:file', async (ctx, next) => {
    const type = ASSETS[ctx.params.file!];
    if (!type) return next();
    ctx.type = type;
    ctx.set('cache-control', 'public, max-age=86400');
    ctx.body = await readFile(join(swaggerUiDir, ctx.params.file!));
  });
}
