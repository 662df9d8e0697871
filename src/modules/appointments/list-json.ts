/**
 * An appointment of the list as the JSON the API answers, written by the database (issue 20).
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
import { sql, type RawBuilder } from 'kysely';
import type { VIEW_COLUMNS } from './view.js';
import { AppointmentSchema } from './schema.js';

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
export const AFTER_9999: RawBuilder<boolean> = sql<boolean>`end_at >= '10000-01-01 00:00+00'`;

/** A row's JSON with its years after 9999 written as toISOString writes them (`+010000-01-01T…`). */
export function withYearsAfter9999(json: string): string {
  return json.replace(/"(start|end|createdAt|updatedAt)":"(\d{5,})-/g, (_, field: string, year: string) => `"${field}":"+${year.padStart(6, '0')}-`);
}

/**
 * A field's JSON value. A uuid (`id` and the columns ending in `_id`, every one a uuid) or a
 * timestamp (the columns ending in `_at`) prints only digits, letters, hyphens, colons and dots,
 * so it is quoted as it is; every other text goes through `to_json`, which escapes it. (With to_json for every field PostgreSQL spent 0.67 ms of CPU a
 * page under bench:api's load, against 0.56 so.)
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
