/**
 * The README: its links to sections of the /docs page point at anchors the
 * page's description has, it says how to page, replay a creation and handle a 429 by linking
 * there, and it cites the specification only in words a clone can follow (no path outside the
 * repository). The docs page test checks that the anchors render.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { V1_DESCRIPTION } from '../../src/http/plugins/openapi-text.js';

const read = (p: string) => fs.readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

describe('README links to the docs page', () => {
  it('links to /docs sections on paging, idempotency and 429 handling, anchors that exist', () => {
    const readme = read('README.md');
    const anchors = [...readme.matchAll(/\/docs\/?#([a-z0-9-]+)/g)].map((m) => m[1]!);
    expect(anchors).toEqual(expect.arrayContaining(['pages', 'idempotency', 'rate-limits']));
    for (const a of anchors) expect(V1_DESCRIPTION, a).toContain(`<a id="${a}"></a>`);
  });

  it('cites no path outside the repository', () => {
    for (const file of ['README.md', ...fs.readdirSync(new URL('../../docs', import.meta.url)).map((f) => `docs/${f}`)]) {
      expect(read(file), file).not.toMatch(/\.\.\/shared|shared\/spec|api-spec\.md/);
    }
  });
});
