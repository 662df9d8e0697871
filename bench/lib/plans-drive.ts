/**
 * What `bench:plans` and its test capture: the real HTTP routes of a voice call's steps, the
 * lists, and the jobs, called on one clinic of a database (its biggest, found by `planTarget`),
 * each step a phase of the `StatementCapture` so a flagged statement says where it came from.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { AppContext } from '../../src/context.js';
import type { DB } from '../../src/db/schema.js';
import { allJobs } from '../../src/jobs/index.js';
import { createApiKey, SCOPES } from '../../src/modules/auth/index.js';
import { startDeliveryWorker } from '../../src/modules/webhooks/index.js';
import type { StatementCapture } from './plans.js';

interface PlanTarget {
  clinicId: string;
  calendarId: string;
  facilityId: string;
  patientId: string;
  patientPhone: string;
  patientName: string;
  /** A key of the clinic with every scope, made for the run. */
  token: string;
}

/** The clinic with the most patients, one of its calendars with a doctor, and a patient with a phone; a key with every scope is made for it. */
export async function planTarget(db: Kysely<DB>): Promise<PlanTarget> {
  const clinic = await sql<{ clinic_id: string }>`SELECT clinic_id FROM patients GROUP BY clinic_id ORDER BY count(*) DESC, clinic_id LIMIT 1`.execute(db);
  const clinicId = clinic.rows[0]?.clinic_id;
  if (!clinicId) throw new Error('the database has no patients: seed it first');
  const calendar = await sql<{ id: string; facility_id: string }>`
    SELECT c.id, c.facility_id FROM calendars c
    WHERE c.clinic_id = ${clinicId} AND cardinality(c.doctor_ids) > 0
    ORDER BY c.created_at DESC LIMIT 1`.execute(db);
  const patient = await sql<{ id: string; phone: string; first_name: string; last_name: string }>`
    SELECT id, phone, first_name, last_name FROM patients WHERE clinic_id = ${clinicId} AND phone IS NOT NULL ORDER BY created_at DESC LIMIT 1`.execute(db);
  const c = calendar.rows[0];
  const p = patient.rows[0];
  if (!c || !p) throw new Error(`clinic ${clinicId} has no calendar with a doctor or no patient with a phone`);
  const key = await createApiKey(db, clinicId, { name: 'bench:plans', scopes: [...SCOPES] });
  return {
    clinicId,
    calendarId: c.id,
    facilityId: c.facility_id,
    patientId: p.id,
    patientPhone: p.phone,
    patientName: `${p.first_name} ${p.last_name}`,
    token: key.token,
  };
}

interface Http {
  base: string;
  adminToken: string;
}

async function call<T = any>(
  http: Http,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ body: T; etag: string | null }> {
  const h: Record<string, string> = { authorization: `Bearer ${token}`, ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  if (method === 'POST' && !path.includes('/admin/')) h['idempotency-key'] ??= randomUUID();
  const res = await fetch(http.base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return { body: (text ? JSON.parse(text) : null) as T, etag: res.headers.get('etag') };
}

/**
 * Calls every route and job whose statements are checked, recording each under its phase.
 * Needs `webhookAllowInsecure` (the endpoint is a closed loopback port: the worker's sends fail at once).
 * Writes to the clinic: a webhook endpoint, a hold, an appointment (rescheduled, cancelled),
 * a call, a lead, a task, a waitlist entry, a conversation, recall and confirmation rules, a confirmation attempt.
 */
export async function drivePlans(ctx: AppContext, http: Http, target: PlanTarget, capture: StatementCapture): Promise<string[]> {
  /** The calls that did not answer 2xx: each is reported, and the steps that need its answer are skipped. */
  const failures: string[] = [];
  const attempt = async <T>(phase: string, work: () => Promise<{ body: T; etag: string | null }>) => {
    try {
      return await capture.during(phase, work);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
      return null;
    }
  };
  const v1 = <T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    attempt(`${method} /v1${path.replace(/\?.*/, '')}`, () => call<T>(http, target.token, method, `/v1${path}`, body, headers));
  const admin = <T = any>(method: string, path: string, body?: unknown) =>
    attempt(`${method} /admin${path.replace(/\?.*/, '')}`, () => call<T>(http, http.adminToken, method, `/admin/v1/clinics/${target.clinicId}${path}`, body));
  const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const since = new Date(Date.now() - 86_400_000).toISOString();
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

  // Set-up whose statements are checked too: deliveries for the worker and the lists.
  await v1('POST', '/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hook',
    events: ['appointment.created', 'appointment.rescheduled', 'appointment.cancelled', 'call.logged', 'lead.created', 'task.created'],
  });
  await admin('PUT', '/recall-rules', {
    categories: ['recall'],
    types: ['checkup'],
    intervalMonths: 6,
    maxAttemptsPerWeek: 3,
    quietStart: '23:58',
    quietEnd: '00:00',
  });
  await admin('PUT', '/confirmation-rules', {
    steps: [{ hoursBefore: 96 }, { daysBefore: 1, at: '18:00' }],
    calendarIds: [],
    categories: [],
    channels: ['phone', 'sms'],
    maxAttempts: 3,
    retryAfterMinutes: 120,
    quietStart: '23:58',
    quietEnd: '00:00',
  });

  // A voice call's steps.
  await v1('GET', `/voice/context?from=${encodeURIComponent(target.patientPhone)}`);
  await v1('GET', `/voice/context?from=${encodeURIComponent('+39 02 0000 0000')}`);
  await v1('GET', `/patients/search?q=${encodeURIComponent(target.patientName)}`);
  await v1('GET', `/patients/search?q=${encodeURIComponent(target.patientName.split(' ')[0]!)}&birthYear=1960`);
  await v1('GET', `/patients/lookup?phone=${encodeURIComponent(target.patientPhone)}`);
  await v1('GET', `/patients/${target.patientId}`);
  const slots = await v1<{ data: { start: string; doctorId: string }[] }>('GET', `/calendars/${target.calendarId}/availability?date=${day}`);
  await v1('GET', `/calendars/${target.calendarId}/availability?date=${day}&partOfDay=afternoon&spread=part_of_day`);
  const [first, second] = slots?.body.data ?? [];
  if (first && second) {
    const hold = await v1<{ id: string }>('POST', `/calendars/${target.calendarId}/holds`, { start: first.start, doctorId: first.doctorId, ttlSeconds: 300 });
    const booked = await v1<{ id: string }>('POST', '/appointments', {
      calendarId: target.calendarId,
      patientId: target.patientId,
      start: first.start,
      holdId: hold?.body.id,
    });
    if (booked) await v1('POST', `/appointments/${booked.body.id}/confirmation-attempts`, { channel: 'phone', outcome: 'no_answer' });
    const read = booked && (await v1('GET', `/appointments/${booked.body.id}`));
    const moved =
      read && (await v1('PATCH', `/appointments/${booked!.body.id}`, { start: second.start, doctorId: second.doctorId }, { 'if-match': read.etag! }));
    if (moved) await v1('POST', `/appointments/${booked!.body.id}/cancel`, undefined, { 'if-match': moved.etag! });
    const released = await v1<{ id: string }>('POST', `/calendars/${target.calendarId}/holds`, {
      start: second.start,
      doctorId: second.doctorId,
      ttlSeconds: 300,
    });
    if (released) await v1('DELETE', `/holds/${released.body.id}`);
  } else failures.push(`no two free slots on ${day} in calendar ${target.calendarId}`);
  const callRow = await v1<{ id: string }>('POST', '/calls', {
    externalCallId: `CA${randomUUID().replace(/-/g, '')}`,
    direction: 'inbound',
    from: target.patientPhone,
    to: '+390212345678',
    startedAt: new Date().toISOString(),
    durationSeconds: 95,
    outcome: 'booked',
    patientId: target.patientId,
  });
  if (callRow) await v1('GET', `/calls/${callRow.body.id}`);
  const lead = await v1<{ id: string }>('POST', '/leads', { firstName: 'Mario', lastName: 'Nuovo', phone: '+393331230000', source: 'phone' });
  if (lead) await v1('GET', `/leads/${lead.body.id}`);
  await v1('POST', '/tasks', { title: 'Richiamare', patientId: target.patientId });
  await v1('POST', '/waitlist', { patientId: target.patientId, calendarId: target.calendarId, latest: inDays(30), channel: 'phone' });
  await v1('POST', `/recalls/${target.patientId}/attempts`, { channel: 'phone', outcome: 'no_answer' });
  await admin('POST', '/conversations', { patientId: target.patientId });

  // The lists, unfiltered and by their filters.
  for (const q of ['', `?patientId=${target.patientId}`, `?from=${since}&to=${inDays(30)}`, `?updatedSince=${since}`, '?status=scheduled'])
    await v1('GET', `/appointments${q}`);
  for (const q of ['', '?status=todo', `?patientId=${target.patientId}`]) await v1('GET', `/tasks${q}`);
  for (const q of ['', '?type=appointment.created', `?updatedSince=${since}`]) await v1('GET', `/events${q}`);
  for (const q of ['', '?status=pending']) await v1('GET', `/webhook-deliveries${q}`);
  for (const q of ['', `?dueBefore=${inDays(365)}`]) await v1('GET', `/recalls${q}`);
  for (const q of ['', `?dueBefore=${inDays(30)}&facilityId=${target.facilityId}`]) await v1('GET', `/confirmations${q}`);
  for (const q of ['', `?calendarId=${target.calendarId}`]) await v1('GET', `/waitlist${q}`);
  await v1('GET', '/waitlist-offers');
  await v1('GET', `/calendars?facilityId=${target.facilityId}`);
  await v1('GET', '/doctors');
  for (const path of ['/events', '/access-log']) await admin('GET', path);

  // The jobs, each once, and the delivery worker's claim.
  for (const job of allJobs()) await capture.during(`job ${job.name}`, () => job.run(ctx));
  await capture.during('worker claim', async () => {
    const worker = await startDeliveryWorker(ctx, { pollMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await worker.stop();
  });
  return failures;
}
