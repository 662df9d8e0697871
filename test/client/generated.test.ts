/**
 * The committed generated files match the live document. Only the operations the committed
 * document holds are compared (routes merged later appear as a warning until regenerated):
 * regenerate with `npm run client:generate`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsSource, operationTable, typesSource } from '../../scripts/generate-client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const STALE = 'the committed client is stale: run npm run client:generate';
const dir = path.resolve(import.meta.dirname, '../../packages/client/src');
const committed = JSON.parse(fs.readFileSync(path.join(dir, 'openapi.json'), 'utf8'));

let server: TestServer;
let live: any;
beforeAll(async () => {
  server = await startTestServer();
  live = (await server.call('GET', '/v1/openapi.json')).body;
});
afterAll(() => server?.close());

describe('generated client files', () => {
  it('openapi.json: every committed operation equals the live one', () => {
    expect(committed.openapi, STALE).toBe(live.openapi);
    expect(committed.info, STALE).toEqual(live.info);
    expect(committed.components.securitySchemes, STALE).toEqual(live.components.securitySchemes);
    for (const [p, item] of Object.entries<Record<string, unknown>>(committed.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(live.paths[p]?.[method], `${method.toUpperCase()} ${p}: ${STALE}`).toEqual(op);
      }
    }
    for (const [name, schema] of Object.entries(committed.components.schemas ?? {})) {
      expect(live.components.schemas?.[name], `schema ${name}: ${STALE}`).toEqual(schema);
    }
    const missing = Object.keys(operationTable(live)).filter((id) => !(id in operationTable(committed)));
    if (missing.length) console.warn(`client: operations not in the generated client yet (${missing.join(', ')}): run npm run client:generate`);
  });

  it('schema.d.ts and operations.ts are generated from the committed openapi.json', async () => {
    expect(fs.readFileSync(path.join(dir, 'schema.d.ts'), 'utf8'), STALE).toBe(await typesSource(committed));
    expect(fs.readFileSync(path.join(dir, 'operations.ts'), 'utf8'), STALE).toBe(operationsSource(committed));
  });
});
