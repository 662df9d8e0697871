/**
 * The docs page at /docs, opened in headless Chromium (Debian's `chromium` package, driven by
 * playwright-core): it renders the operations of /v1/openapi.json with their examples, and
 * loads nothing from outside the server (the machine is offline; so are many deployments).
 * Outside CI the test is skipped when chromium is not installed; in CI (CI set) it must run.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The usual flags of a headless run: no --virtual-time-budget, so the page must render by its load event. */
const USUAL_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const available = fs.existsSync(CHROMIUM);
const skip = !available && !process.env.CI;
if (skip) console.warn(`docs page test skipped: ${CHROMIUM} is missing (apt-get install -y chromium); it is required when CI is set`);

describe.skipIf(skip)('docs page at /docs', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    if (!available) throw new Error(`CI is set but ${CHROMIUM} is missing: install it with apt-get install -y chromium`);
    server = await startTestServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: USUAL_FLAGS,
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the operations with their summaries, and their examples when opened, offline', async () => {
    const page = await browser.newPage();
    // The machine may be busy (CI runs both engines' suites): be patient, not flaky.
    page.setDefaultTimeout(60_000);
    const outside: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(server.url) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      const response = await page.goto(`${server.url}/docs/`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      // The API description and its areas.
      await page.locator('.info .title').first().waitFor();
      expect(await page.locator('.info .title').first().innerText()).toContain('Dental Clinic Management API');
      expect(await page.locator('.info').first().innerText()).toContain('Idempotency');
      // The sections the README links to (/docs#pages, #idempotency, #rate-limits) are anchors of the page.
      for (const anchor of ['pages', 'idempotency', 'rate-limits']) expect(await page.locator(`.info [id="${anchor}"]`).count(), anchor).toBe(1);
      // Every operation of the document, by operationId.
      const doc = (await server.call('GET', '/v1/openapi.json')).body;
      const ids: string[] = [];
      for (const item of Object.values<Record<string, { operationId?: string }>>(doc.paths))
        for (const op of Object.values(item)) if (op.operationId) ids.push(op.operationId);
      expect(ids).toContain('getFacility');
      const blocks = page.locator('.opblock');
      await blocks.first().waitFor();
      // An operation is shown once per tag: at least once each.
      expect(await blocks.count()).toBeGreaterThanOrEqual(ids.length);
      const text = await page.locator('.swagger-ui').first().innerText();
      for (const id of ids) expect(text).toContain(id);
      expect(text).toContain('/facilities/{id}');
      expect(text).toContain('Read a facility');

      // Open getFacility: its description, parameters, and the examples of its responses.
      const block = page.locator('.opblock', { hasText: 'getFacility' }).first();
      await block.locator('.opblock-summary').click();
      const body = block.locator('.opblock-body');
      await body.waitFor();
      const opened = await body.innerText();
      expect(opened).toContain('Scopes: clinic:read');
      expect(opened).toContain('Example Value');
      expect(opened).toContain('"not_found"');
      expect(opened).toContain('"requestId"');
      expect(opened).toMatch(/"isMainLocation": (true|false)/);
      // A curl and a TypeScript sample under every operation (here getFacility's).
      expect(opened).toContain('curl -s "https://api.example.com/v1/facilities/');
      expect(opened).toContain("await api.call('getFacility'");
      // "Try it out" calls this server's /v1 (the page's first server), though the document is inline.
      const id = '8e12984b-77ad-4195-8471-111ae077caeb';
      await block.locator('.try-out__btn').click();
      await block.locator('input[placeholder="id"]').fill(id);
      const tried = page.waitForRequest((request) => request.url().startsWith(`${server.url}/v1/facilities/`));
      await block.locator('.execute').click();
      expect((await tried).url()).toBe(`${server.url}/v1/facilities/${id}`);
      await block.locator('.live-responses-table').waitFor();
      for (const item of Object.values<Record<string, { operationId?: string; description?: string }>>(doc.paths))
        for (const op of Object.values(item)) {
          expect(op.description, op.operationId).toContain('**curl**');
          expect(op.description, op.operationId).toContain(`await api.call('${op.operationId}'`);
        }

      // An operation with a body (creations arrive with other branches): its body example is shown.
      let withBody: string | undefined;
      for (const item of Object.values<Record<string, { operationId?: string; requestBody?: unknown }>>(doc.paths)) {
        for (const op of Object.values(item)) if (!withBody && op.requestBody && op.operationId) withBody = op.operationId;
      }
      if (withBody) {
        const creation = page.locator('.opblock', { hasText: withBody }).first();
        await creation.locator('.opblock-summary').click();
        const section = creation.locator('.opblock-section-request-body');
        await section.waitFor();
        expect(await section.innerText(), withBody).toContain('Example Value');
      }

      expect(outside).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('shows the operations to the chromium binary with only the usual flags (--dump-dom at the load event, no virtual time)', async () => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-docs-chromium-'));
    try {
      const run = promisify(execFile);
      const { stdout } = await run(CHROMIUM, [...USUAL_FLAGS, `--user-data-dir=${profile}`, '--dump-dom', `${server.url}/docs`], {
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      // Not swagger-ui's "loading" spinner: the description, the operations and their summaries.
      expect(stdout).toContain('Dental Clinic Management API');
      expect(stdout).toContain('id="idempotency"');
      const doc = (await server.call('GET', '/v1/openapi.json')).body;
      for (const item of Object.values<Record<string, { operationId?: string; summary?: string }>>(doc.paths))
        for (const op of Object.values(item)) {
          if (op.operationId) expect(stdout).toContain(`>${op.operationId}<`);
          if (op.summary) expect(stdout, op.operationId).toContain(op.summary.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
        }
      expect(stdout).toContain('Create a patient');
    } finally {
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
});
