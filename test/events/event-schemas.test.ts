/**
 * The schema of each event's `data` (src/modules/<noun>/events.ts, assembled in src/event-schemas.ts):
 * every type of the catalogue (and `events.skipped`, `webhook.test`) has one,
 * with an example that validates;
 * a sample (the `trigger` data) has the type's shape with fresh ids; and under the tests
 * (DCM_STRICT_EVENTS=1) recordEvent refuses a `data` of the wrong shape for its type, leaving
 * nothing behind, so every event the suite records is checked against its documented shape.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/events/catalogue.js';
import { recordEvent, type NewEvent } from '../../src/events/record.js';
import { ALL_EVENT_TYPES, EVENT_DATA_SCHEMAS, exampleData, sampleData } from '../../src/event-schemas.js';
import { recordSkipped } from '../../src/events/skipped.js';
import { assertEventData, STRICT_EVENTS } from '../../src/events/validate.js';
import { revokeApiKey } from '../../src/modules/auth/keys-service.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const idsIn = (value: unknown): string[] => {
  if (typeof value === 'string') return UUID.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(idsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(idsIn);
  return [];
};

describe('event data schemas', () => {
  it('exist for every type of the catalogue, events.skipped and webhook.test', () => {
    expect([...ALL_EVENT_TYPES].sort()).toEqual([...SUBSCRIBABLE_EVENT_TYPES, 'events.skipped', 'webhook.test'].sort());
    for (const type of ALL_EVENT_TYPES) {
      const schema = EVENT_DATA_SCHEMAS[type] as unknown as { title?: string; examples?: unknown[] };
      expect(schema.title, type).toMatch(/EventData$/);
      expect(schema.examples, type).toHaveLength(1);
    }
  });

  it('each example validates, by the outbox’s check and by an independent JSON Schema 2020-12 validator', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    formats.default(ajv);
    const problems: string[] = [];
    for (const type of ALL_EVENT_TYPES) {
      const data = exampleData(type);
      expect(() => assertEventData(type, data), type).not.toThrow();
      const validate = ajv.compile(JSON.parse(JSON.stringify(EVENT_DATA_SCHEMAS[type])));
      if (!validate(data)) problems.push(`${type}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('describes what the spec fixes: appointment fields, changedFields, reason, patientId, events.skipped', () => {
    const keys = (type: keyof typeof EVENT_DATA_SCHEMAS) => Object.keys(exampleData(type)).sort();
    const appointment = ['id', 'status', 'startTime', 'endTime', 'patientId', 'doctorId', 'chairId', 'facilityId', 'calendarId'];
    expect(keys('appointment.created')).toEqual([...appointment, 'treatmentPlanId', 'origin', 'createdAt', 'updatedAt'].sort());
    expect(keys('appointment.rescheduled')).toContain('previous');
    expect(exampleData('patient.updated').changedFields.length).toBeGreaterThan(0);
    expect(exampleData('patient.archived').reason).toBe('archived');
    expect(exampleData('lead.converted').patientId).toMatch(UUID);
    expect(exampleData('webhook.test')).toEqual({});
    // The three shapes of events.skipped (spec 6.4).
    assertEventData('events.skipped', { type: 'lead.created', scope: 'leads:read', reason: 'bulk_import', count: 75 });
    assertEventData('events.skipped', {
      type: 'task.created',
      scope: 'tasks:read',
      reason: 'no_active_key',
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-02T08:00:00.000Z',
    });
    assertEventData('events.skipped', { type: 'task.created', scope: 'tasks:read', reason: 'error' });
    expect(() => assertEventData('events.skipped', { type: 'task.created', scope: 'tasks:read', reason: 'bulk_import' })).toThrow(/count/);
  });

  it('never hold a name, a phone, an email or clinical text', () => {
    const forbidden =
      /^(firstName|lastName|email|phone|from|to|title|reason|notes|clinicalNotes|completionNotes|body|summary|transcript|description|allergies|medications|conditions|lines|items)$/;
    for (const type of ALL_EVENT_TYPES) {
      const walk = (schema: Record<string, any>, path: string) => {
        for (const [name, sub] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
          // patient.archived's reason is archived/erased; events.skipped's reason and from/to are its own fields (spec 6.4).
          const allowed = (type === 'patient.archived' && name === 'reason') || type === 'events.skipped';
          if (!allowed) expect(name, `${type} ${path}${name}`).not.toMatch(forbidden);
          walk(sub, `${path}${name}.`);
        }
        for (const branch of schema.anyOf ?? []) walk(branch, path);
      };
      walk(EVENT_DATA_SCHEMAS[type] as unknown as Record<string, any>, '');
    }
  });

  it('a sample has the type’s shape, fresh ids (links kept) and the event’s facility', () => {
    for (const type of ALL_EVENT_TYPES) {
      const facilityId = crypto.randomUUID();
      const sample = sampleData(type, facilityId) as Record<string, unknown>;
      expect(() => assertEventData(type, sample), type).not.toThrow();
      const exampleIds = new Set(idsIn(exampleData(type)));
      for (const id of idsIn(sample)) expect(exampleIds.has(id), `${type}: ${id} is an id of the example`).toBe(false);
      if ('facilityId' in sample) expect(sample.facilityId).toBe(facilityId);
    }
    const converted = sampleData('lead.converted', null);
    expect(converted.patientId).toBe(converted.convertedPatientId);
    expect(converted.facilityId).toBeNull();
  });
});

describe('the strict check of the outbox', () => {
  it('is on under the tests', () => {
    expect(STRICT_EVENTS).toBe(true);
  });

  it('throws for a data of the wrong shape and leaves nothing behind', async () => {
    const t = await server.factories.tenant();
    const f = t.facilityIds[0]!;
    const task = sampleData('task.created', f);
    const wrong: Array<[string, Record<string, unknown>, RegExp]> = [
      ['a field missing', { ...task, status: undefined }, /must have required property 'status'/],
      ['an undocumented field (here a free text)', { ...task, title: 'Richiamare per la seduta di igiene' }, /must NOT have additional properties/],
      ['a value outside its enum', { ...task, status: 'archived' }, /\/status must be equal to one of the allowed values/],
      ['an id that is no id', { ...task, patientId: 'p1' }, /\/patientId must match format "uuid"/],
      ['a timestamp that is a Date turned to text the wrong way', { ...task, createdAt: 'Mon Mar 02 2026' }, /\/createdAt must match format "date-time"/],
    ];
    for (const [what, data, message] of wrong) {
      // The cast is the point: the compiler refuses these (see below); the check catches what slips past it.
      const event = { clinicId: t.clinicId, type: 'task.created', facilityId: f, data } as unknown as NewEvent;
      await expect(
        server.ctx.db.transaction().execute((trx) => recordEvent(trx, event)),
        what,
      ).rejects.toThrow(message);
    }
    // events.skipped goes through the same check.
    await expect(
      server.ctx.db
        .transaction()
        .execute((trx) =>
          recordSkipped(trx, t.clinicId, 'task.created', { reason: 'bulk_import', count: 'many' } as unknown as { reason: 'bulk_import'; count: number }),
        ),
    ).rejects.toThrow(/\/count must be integer/);
    expect(await server.ctx.db.selectFrom('events').select('id').where('clinic_id', '=', t.clinicId).execute()).toEqual([]);

    // Checked on entry: also while the clinic has no active key (no event is made then, only a gap remembered).
    const keyless = await server.factories.tenant();
    const keys = await server.ctx.db.selectFrom('api_keys').select('id').where('clinic_id', '=', keyless.clinicId).execute();
    for (const k of keys) await revokeApiKey(server.ctx.db, k.id);
    const held = { clinicId: keyless.clinicId, type: 'task.created', facilityId: null, data: { ...task, status: 'archived' } } as unknown as NewEvent;
    await expect(server.ctx.db.transaction().execute((trx) => recordEvent(trx, held))).rejects.toThrow(/\/status must be equal to one of the allowed values/);
    const gap = { clinicId: keyless.clinicId, type: 'task.created' as const, facilityId: null, data: sampleData('task.created', null) };
    expect(await server.ctx.db.transaction().execute((trx) => recordEvent(trx, gap))).toMatchObject({ id: '', skipped: 'no_active_key' });

    // The right shape is recorded.
    const ok = await server.ctx.db.transaction().execute((trx) => recordEvent(trx, { clinicId: t.clinicId, type: 'task.created', facilityId: f, data: task }));
    expect(ok.id).toMatch(UUID);
  });

  it('a data of the wrong shape for its type does not compile', () => {
    const patient = exampleData('patient.created');
    const task = exampleData('task.created');
    const events: NewEvent[] = [
      { clinicId: 'c', type: 'task.created', facilityId: null, data: task },
      // @ts-expect-error: a patient's data on a task event
      { clinicId: 'c', type: 'task.created', facilityId: null, data: patient },
      // @ts-expect-error: a field the type does not document
      { clinicId: 'c', type: 'patient.created', facilityId: null, data: { ...patient, firstName: 'Giulia' } },
      // @ts-expect-error: patient.archived needs its reason
      { clinicId: 'c', type: 'patient.archived', facilityId: null, data: patient },
    ];
    expect(events).toHaveLength(4);
  });
});
