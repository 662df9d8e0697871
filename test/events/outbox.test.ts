import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/record.js';
import { sampleData } from '../../src/event-schemas.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const eventsOf = (clinicId: string) => server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', clinicId).execute();

describe('the event outbox', () => {
  it('commits an event with its change, with the envelope fields of spec 6.2', async () => {
    const data = sampleData('task.created', tenant.facilityIds[0]!);
    await server.ctx.db.transaction().execute(async (trx) => {
      await recordEvent(trx, { clinicId: tenant.clinicId, type: 'task.created', facilityId: tenant.facilityIds[0]!, data });
    });
    const [event] = await eventsOf(tenant.clinicId);
    expect(event).toMatchObject({
      type: 'task.created',
      scope: 'tasks:read',
      livemode: true,
      api_version: 'v1',
      facility_id: tenant.facilityIds[0],
      data,
    });
  });

  it('leaves no event when the change rolls back', async () => {
    const t = await server.factories.tenant();
    await expect(
      server.ctx.db.transaction().execute(async (trx) => {
        await recordEvent(trx, { clinicId: t.clinicId, type: 'lead.created', facilityId: null, data: sampleData('lead.created', null) });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await eventsOf(t.clinicId)).toHaveLength(0);
  });

  it('marks events of a test clinic as not live', async () => {
    const t = await server.factories.tenant({ mode: 'test' });
    await server.ctx.db
      .transaction()
      .execute((trx) => recordEvent(trx, { clinicId: t.clinicId, type: 'lead.created', facilityId: null, data: sampleData('lead.created', null) }));
    expect((await eventsOf(t.clinicId))[0]!.livemode).toBe(false);
  });
});
