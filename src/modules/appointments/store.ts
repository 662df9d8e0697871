/**
 * The appointments' store: the list's page, the one INSERT of an appointment (with the
 * round-trip tuning of the bookings) and the updates. It answers in outcomes; the
 * rules and their errors are service.ts's.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Compilable, type RawBuilder } from 'kysely';
import { insertWhere } from '../../db/insert.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { keysetPage } from '../../db/keyset.js';
import { facilityVisible } from '../../db/tenant.js';
import { assertSameEventData, recordEventIn } from '../../events/record.js';
import { commitCheck, lastStatement } from '../../db/then-commit.js';
import { prepared } from '../../db/prepared-statements.js';
import type { Actor } from '../../core/actor.js';
import type { Slot } from '../../core/agenda.js';
import type { VIEW_COLUMNS } from './view.js';
import { type AppointmentOrigin, type AppointmentRow, type AppointmentStatus } from './model.js';
import { eventData } from './events.js';
import { AppointmentSchema, type ListQuery } from './schema.js';

/**
 * A page of the list: each appointment as its JSON text (APPOINTMENT_JSON, below), the ids of those whose
 * title or reason holds text (the read the access log names), and the cursor after the last.
 */
export async function listPage(
  db: Db,
  actor: Actor,
  q: ListQuery,
  cursorScope: string,
): Promise<{ items: string[]; loggedIds: string[]; nextCursor: string | null }> {
  const statuses = q.status ? [...new Set(q.status.split(','))] : null;
  const column = q.sort === 'start' ? 'start_at' : 'updated_at';

  // Only what the page answers: the notes are never in it (their text is not read at all).
  let query = db
    .selectFrom('appointments')
    .select([
      'id',
      APPOINTMENT_JSON.as('json'),
      AFTER_9999.as('after_9999'),
      sql<boolean>`title IS NOT NULL OR reason IS NOT NULL`.as('logged'),
      sql.ref(column).$castTo<Date>().as('at'),
    ])
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('facility_id', actor));
  if (q.updatedSince) query = query.where('updated_at', '>=', new Date(q.updatedSince));
  if (q.from) query = query.where('start_at', '>=', new Date(q.from));
  if (q.to) query = query.where('start_at', '<', new Date(q.to));
  if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
  if (q.doctorId) query = query.where('doctor_id', '=', q.doctorId);
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (statuses) query = query.where('status', 'in', statuses);
  // The page of the whole clinic (a sync's, in either order, from a cursor or an instant) is
  // prepared: planning its JSON (APPOINTMENT_JSON, below) cost PostgreSQL a third of a page's CPU, and its
  // one plan, the clinic's index in the page's order, is right for every clinic. A page filtered
  // further, or of a key limited to facilities, may want another index for other values: planned each time.
  const unprepared = !!(q.from || q.to || q.facilityId || q.doctorId || q.patientId || statuses || actor.facilityIds);
  const page = await keysetPage(query, {
    columns: [column, 'id'],
    at: (r) => r.at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit,
    run: unprepared ? undefined : async (statement) => (await prepared(statement).execute(db)).rows,
  });
  return {
    items: page.items.map((r) => (r.after_9999 ? withYearsAfter9999(r.json) : r.json)),
    loggedIds: page.items.filter((r) => r.logged).map((r) => r.id),
    nextCursor: page.nextCursor,
  };
}

/** What an appointment may describe of itself; unset is null. */
interface AppointmentDetails {
  type?: string | null;
  category?: string | null;
  title?: string | null;
  reason?: string | null;
  notes?: string | null;
  clinicalNotes?: string | null;
  treatmentPlanId?: string | null;
}

/** What an appointment is born with, checked. */
export interface AppointmentInsert extends AppointmentDetails {
  patientId: string;
  facilityId: string | null;
  doctorId: string | null;
  chairId: string | null;
  calendarId: string | null;
  /** A Date or an ISO timestamp (a slot of the calendar). */
  start: Date | string;
  end: Date | string;
  status: AppointmentStatus;
  origin: AppointmentOrigin;
}

/** A query of the time taken (calendars' busyTimesQuery): any row found means the time is busy. */
export type BusyQuery = Compilable<unknown>;

type AppointmentWrite = { kind: 'created'; row: AppointmentRow } | { kind: 'busy' };

/**
 * The one INSERT of an appointment, with its `appointment.created` event recorded by the same
 * statement (recordEventIn; one round trip fewer): its data is built from the values
 * inserted (ids lower-cased as PostgreSQL answers them, the times set here), and under the tests
 * compared with the row written. The overlap constraints may refuse it (the caller maps that).
 *
 * `unlessBusy`: the insert happens only when that query finds nothing (`busy` otherwise, and
 * nothing is written). The search is the insert's own statement (a booking whose schedules are
 * locked needs no read of its time before), so it sees what every earlier holder of those locks
 * committed, and not the row it inserts. The statement is prepared with the read in it: its kept
 * (generic) plan reads the appointments through the doctor's overlap index (doctor and time), as
 * the plans made for the values do, and not through (clinic, doctor, start), which would read the
 * doctor's whole history (seen with `plan_cache_mode = force_generic_plan` on a doctor of 100,000
 * appointments, alone and among 3,000 doctors of one appointment each).
 *
 * `commits`: the statement is the transaction's last and carries its COMMIT
 * (src/db/then-commit.ts); where the event was not inserted at once, it fails instead and nothing
 * is written (the caller runs it again without).
 */
export async function writeAppointment(
  trx: Transaction,
  actor: Actor,
  a: AppointmentInsert,
  { commits, unlessBusy }: { commits: boolean; unlessBusy: BusyQuery | null },
): Promise<AppointmentWrite> {
  const { clinicId } = actor;
  const now = new Date();
  const id = (value: string | null) => value?.toLowerCase() ?? null;
  const values = {
    id: randomUUID(),
    clinic_id: clinicId,
    patient_id: a.patientId.toLowerCase(),
    facility_id: id(a.facilityId),
    doctor_id: id(a.doctorId),
    chair_id: id(a.chairId),
    calendar_id: id(a.calendarId),
    start_at: new Date(a.start),
    end_at: new Date(a.end),
    status: a.status,
    type: a.type ?? null,
    category: a.category ?? null,
    title: a.title ?? null,
    reason: a.reason ?? null,
    notes: a.notes ?? null,
    clinical_notes: a.clinicalNotes ?? null,
    origin: a.origin,
    treatment_plan_id: id(a.treatmentPlanId ?? null),
    created_at: now,
    updated_at: now,
  };
  const data = eventData(values);
  const event = recordEventIn(trx, { log: actor.log, clinicId, type: 'appointment.created', facilityId: values.facility_id, data });
  const insert = unlessBusy
    ? sql`WITH busy AS (${unlessBusy}), created AS (${insertWhere('appointments', values, sql<boolean>`NOT EXISTS (SELECT 1 FROM busy)`)})`
    : sql`WITH created AS (${trx.insertInto('appointments').values(values).returningAll()})`;
  const answer = sql`SELECT created.*, ${event.call} AS event_outcome FROM created`;
  type Written = AppointmentRow & { event_outcome: string };
  const checks = [commitCheck<Written>('event', { when: sql`answer.event_outcome <> 'inserted'` })];
  const last = lastStatement<Written, (typeof checks)[number]>(insert, answer, { commits, checks });
  const { rows } = last.read((await prepared(last.statement).execute(trx)).rows);
  if (rows.length === 0) return { kind: 'busy' };
  const { event_outcome, ...row } = rows[0]!;
  assertSameEventData('appointment.created', data, () => eventData(row));
  await event.settle(trx, event_outcome);
  return { kind: 'created', row };
}

/** An appointment's columns changed (`set`), its version moved on. */
export async function updateRow(trx: Transaction, id: string, set: Record<string, unknown>): Promise<AppointmentRow> {
  return trx
    .updateTable('appointments')
    .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Moves the appointment to `slot` of a calendar of `facilityId` (stamping `origin` when given) and bumps its version. */
export async function moveAppointment(
  trx: Transaction,
  id: string,
  to: { slot: Slot; facilityId: string; origin: AppointmentOrigin | null },
): Promise<AppointmentRow> {
  return trx
    .updateTable('appointments')
    .set({
      start_at: to.slot.start,
      end_at: to.slot.end,
      doctor_id: to.slot.doctorId,
      chair_id: to.slot.chairId,
      facility_id: to.facilityId,
      ...(to.origin ? { origin: to.origin } : {}),
      updated_at: sql`now()`,
      version: sql`version + 1`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Whether the patient has an appointment in the clinic that is not cancelled. */
export async function hasAppointment(trx: Transaction, clinicId: string, patientId: string): Promise<boolean> {
  const seen = await trx
    .selectFrom('appointments')
    .select('id')
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', patientId)
    .where('status', '<>', 'cancelled')
    .limit(1)
    .executeTakeFirst();
  return seen !== undefined;
}

/** The appointment of this id (one a hold was used for). */
export async function appointmentById(trx: Transaction, id: string): Promise<AppointmentRow> {
  return trx.selectFrom('appointments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * The patient's live appointment (scheduled or confirmed) at exactly this calendar and start,
 * of this doctor when one is named, or undefined: what a retried booking answers.
 */
export async function liveAppointmentAt(
  db: Db,
  clinicId: string,
  at: { patientId: string; calendarId: string; start: Date; doctorId: string | undefined },
): Promise<AppointmentRow | undefined> {
  let query = db
    .selectFrom('appointments')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', at.patientId)
    .where('calendar_id', '=', at.calendarId)
    .where('start_at', '=', at.start)
    .where('status', 'in', ['scheduled', 'confirmed']);
  if (at.doctorId) query = query.where('doctor_id', '=', at.doctorId);
  return query.orderBy('created_at').limit(1).executeTakeFirst();
}

/*
 * An appointment of the list as the JSON the API answers, written by the database.
 *
 * The uncached list page was bound by the server's one event loop: for 50 appointments `pg`
 * decoded 850 fields, four timestamps a row were parsed into Dates and printed back with
 * toISOString, each row was copied into its view and the page serialized (about half of the
 * server's CPU under load, with the garbage they left). Here PostgreSQL writes each row's JSON
 * in the statement that reads it, one text a row, and the server joins them into the page.
 *
 * The text is the bytes the route's serializer wrote for toView's object (the test compares
 * them, row by row, with JSON.stringify of toView, on both engines):
 * - the fields in the schema's order (AppointmentSchema), each read from the column toView reads;
 * - `to_json` escapes a string as JSON.stringify does (`\"`, `\\`, `\b \f \n \r \t`, other
 *   characters below U+0020 as `\u00xx`, nothing else; a stored text has no lone surrogate);
 * - a timestamp is printed in UTC with milliseconds (`2026-03-04T09:30:00.123Z`), whatever the
 *   session's time zone, and after the year 9999 with a sign and six digits of year, as
 *   toISOString does (AFTER_9999); the table keeps milliseconds (timestamptz(3)), so none is lost;
 * - a NULL is `null`.
 */
type ListField = keyof typeof AppointmentSchema.properties;

/** The column each field of the list reads, as toView maps them (src/modules/appointments/model.ts). */
const COLUMN_OF: Record<ListField, (typeof VIEW_COLUMNS)[number]> = {
  id: 'id',
  patientId: 'patient_id',
  facilityId: 'facility_id',
  doctorId: 'doctor_id',
  chairId: 'chair_id',
  calendarId: 'calendar_id',
  start: 'start_at',
  end: 'end_at',
  status: 'status',
  type: 'type',
  category: 'category',
  title: 'title',
  reason: 'reason',
  origin: 'origin',
  treatmentPlanId: 'treatment_plan_id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Date#toISOString's layout, for the years 0-9999 (see AFTER_9999). */
const ISO_8601 = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

/**
 * Whether the row has a timestamp in the year 10000 or later in UTC (a start on 9999-12-31 with
 * a negative offset): to_char then prints five digits of year where toISOString prints a sign and
 * six, and withYearsAfter9999 mends the row's text. Only the end can be that late (it follows the
 * start; the creation and the last change are the database's clock). A CASE on every timestamp
 * instead cost PostgreSQL about a tenth of a millisecond a page.
 */
const AFTER_9999: RawBuilder<boolean> = sql<boolean>`end_at >= '10000-01-01 00:00+00'`;

/** A row's JSON with its years after 9999 written as toISOString writes them (`+010000-01-01T…`). */
export function withYearsAfter9999(json: string): string {
  return json.replace(/"(start|end|createdAt|updatedAt)":"(\d{5,})-/g, (_, field: string, year: string) => `"${field}":"+${year.padStart(6, '0')}-`);
}

/**
 * A field's JSON value. A uuid (`id` and the columns ending in `_id`, every one a uuid) or a
 * timestamp (the columns ending in `_at`) prints only digits, letters, hyphens, colons and dots,
 * so it is quoted as it is; every other text goes through `to_json`, which escapes it. (to_json
 * for every field cost PostgreSQL a fifth more CPU a page under bench:api's load.)
 */
function valueJson(column: string): RawBuilder<string> {
  const ref = sql.ref(column);
  if (column.endsWith('_at')) return sql`coalesce('"' || to_char(${ref} AT TIME ZONE 'UTC', ${sql.lit(ISO_8601)}) || '"', 'null')`;
  if (column === 'id' || column.endsWith('_id')) return sql`coalesce('"' || ${ref}::text || '"', 'null')`;
  return sql`coalesce(to_json(${ref})::text, 'null')`;
}

/** The expression of a row's JSON text, over the `appointments` table; a constant text (no parameters). */
export const APPOINTMENT_JSON: RawBuilder<string> = sql<string>`${sql.join(
  (Object.keys(AppointmentSchema.properties) as ListField[]).map(
    (field, i) => sql`${sql.lit(`${i === 0 ? '{' : ','}${JSON.stringify(field)}:`)} || ${valueJson(COLUMN_OF[field])}`,
  ),
  sql` || `,
)} || '}'`;
