import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../platform/temp-dir.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

// Debian's Chromium (apt-get install chromium; .ci/run installs it). CHROMIUM_PATH points elsewhere.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let api: TestApi;
let browser: Browser;
beforeAll(async () => {
  api = await startTestApi();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe('API docs page in a browser', () => {
  it('renders the generated OpenAPI, lists the documents endpoints, and is not blank', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(request.url()));
    await page.goto(`${api.url}/public/api/v1/docs`);
    await page.getByRole('heading', { name: /Accounts-payable API/ }).waitFor({ timeout: 20_000 });
    const documents = page
      .locator('.opblock-tag-section')
      .filter({ has: page.locator('h3', { hasText: /^Documents/ }) });
    await expect
      .poll(async () => documents.locator('.opblock-summary-path').allInnerTexts(), { timeout: 20_000 })
      .toEqual(
        expect.arrayContaining([
          '/public/api/v1/documents',
          '/public/api/v1/documents/{reference}',
          '/public/api/v1/documents/{reference}/approve',
        ]),
      );
    expect(failed).toEqual([]);

    const shot = await page.screenshot({ type: 'jpeg', quality: 80, fullPage: false });
    const blank = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const empty = await blank.screenshot({ type: 'jpeg', quality: 80 });
    writeFileSync(join(tempDir('ap-docs-'), 'docs-page.jpg'), shot);
    // A rendered page carries far more detail than an empty one of the same size.
    expect(shot.length).toBeGreaterThan(empty.length * 4);
  });
});
