import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import { BANK_CATALOG } from '../../db/banks/bank-catalog.ts';
import type { Country } from '../../db/companies/company.entity.ts';

const escape = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A bank's logo: its initials on a colour derived from its code, so the catalog needs no outside images. */
function bankLogo(name: string, code: string): string {
  const hue = createHash('sha1').update(code).digest()[0]! * (360 / 256);
  const initials = name
    .replace(/^Banco (de )?/i, '')
    .split(/\s+/)
    .map((word) => word[0])
    .join('')
    .slice(0, 3)
    .toUpperCase();
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${escape(name)}">` +
    `<rect width="64" height="64" rx="12" fill="hsl(${Math.round(hue)} 55% 38%)"/>` +
    '<text x="32" y="40" font-family="sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">' +
    `${escape(initials)}</text></svg>`
  );
}

export function mountAssets(router: Router): void {
  router.get('/public/assets/banks/:file', (ctx, next) => {
    const match = /^(COL|MEX)-(\d{3,4})\.svg$/.exec(ctx.params.file ?? '');
    const entry = match ? BANK_CATALOG[match[1] as Country].find(([code]) => code === match[2]) : undefined;
    if (!entry) return next();
    ctx.type = 'image/svg+xml';
    ctx.set('cache-control', 'public, max-age=86400');
    ctx.body = bankLogo(entry[1], entry[0]);
  });
}
