/**
 * Shared schemas of spec 2.1. Formats (`uuid`, `date-time`, `date`, `email`) are the strict
 * ones of src/lib/formats.ts, registered on the validator in src/http/validation.ts. Module
 * schemas (src/modules/<name>/schema.ts) and route files build on these.
 */
import { Type, type Static, type TSchema } from 'typebox';

export const Uuid = (options: Record<string, unknown> = {}) =>
  Type.String({ format: 'uuid', description: 'UUID (8-4-4-4-12 hexadecimal, any letter case)', ...options });

/** Input timestamp (spec 2.1): `2026-03-01T09:30`, `2026-03-01T09:30:00.000Z`, `2026-03-01T09:30+01:00`. */
export const InputTimestamp = (options: Record<string, unknown> = {}) =>
  Type.String({
    format: 'date-time',
    description: 'ISO 8601 date-time with `T`, optional seconds and fraction, and `Z` or `±hh:mm`',
    examples: ['2026-03-02T09:30:00Z'],
    ...options,
  });

/** Output timestamp: ISO 8601 in UTC. */
export const OutputTimestamp = (options: Record<string, unknown> = {}) => Type.String({ format: 'date-time', description: 'ISO 8601, UTC', ...options });

export const DateOnly = (options: Record<string, unknown> = {}) =>
  Type.String({ format: 'date', description: '`YYYY-MM-DD`, a valid calendar date', examples: ['1985-04-12'], ...options });

export const Email = (maxLength: number) => Type.String({ format: 'email', maxLength, examples: ['mario.rossi@example.com'] });

/**
 * `schema` or null. Written as a type array (OpenAPI 3.1 / JSON Schema) rather than anyOf,
 * so a wrong value yields one clear validation issue instead of one per branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as Record<string, unknown>;
  const copy: Record<string, unknown> = { ...s };
  if (Array.isArray(s.enum)) copy.enum = [...(s.enum as unknown[]), null];
  if (typeof s.type === 'string') copy.type = [s.type, 'null'];
  else if (s.type === undefined && s.enum === undefined) return Type.Union([schema, Type.Null()]);
  return Type.Unsafe<Static<T> | null>(copy);
}

export const StringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const Limit = (max: number, fallback: number) =>
  Type.Integer({ minimum: 1, maximum: max, default: fallback, description: `Page size, 1-${max} (default ${fallback})` });

export const Cursor = () => Type.String({ minLength: 1, maxLength: 500, description: 'The previous page’s `nextCursor`, unchanged' });

/** The page fields every list's querystring starts with (spec 4.1: `limit`, `cursor`). */
export const PageQueryFields = { limit: Type.Optional(Limit(200, 50)), cursor: Type.Optional(Cursor()) };

/** The Clinic lists of /v1 (facilities, doctors, chairs, staff profiles, calendars): a page by last modification (oldest first, then id), `updatedSince`. */
export const UpdatedListQueryFields = {
  ...PageQueryFields,
  updatedSince: Type.Optional(InputTimestamp({ description: 'Only rows modified at or after this instant' })),
};
export const UpdatedListQuerySchema = Type.Object(UpdatedListQueryFields, { additionalProperties: false });
export type UpdatedListQuery = Static<typeof UpdatedListQuerySchema>;

/** A person's names as the back office sets them (doctors, staff profiles). */
export const PersonNameFields = {
  firstName: Type.String({ minLength: 1, maxLength: 100 }),
  lastName: Type.String({ minLength: 1, maxLength: 100 }),
};

/** A doctor or staff profile as the back office answers its creation and lists it. */
export const PersonSchema = Type.Object(
  { id: Uuid(), facilityId: Nullable(Uuid()), firstName: Type.String(), lastName: Type.String() },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Uuid() }, { additionalProperties: false });
/** Back-office paths: `/admin/v1/clinics/{clinicId}/…` and `…/{clinicId}/…/{id}`. */
export const ClinicParams = Type.Object({ clinicId: Uuid() }, { additionalProperties: false });
export const ClinicItemParams = Type.Object({ clinicId: Uuid(), id: Uuid() }, { additionalProperties: false });

const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass it as `cursor` for the next page; null on the last page',
});

export function Page<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), nextCursor: NextCursor }, { additionalProperties: false });
}

/** A back-office list answered whole, with no paging: `{ data: [...] }`. */
export function List<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item) });
}

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'Stable code; use it in program logic' }),
        message: Type.String({ description: 'Italian text for a person; may change' }),
        details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
        requestId: Type.String({ description: 'Same as the X-Request-Id header' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ErrorEnvelope', additionalProperties: false, title: 'ErrorEnvelope' },
);

/** Header schemas shared by creations and modifications. */
const IdempotencyKeyHeader = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Same key within 24 hours repeats the first 2xx response',
});
const IfMatchHeader = Type.String({ minLength: 1, maxLength: 100, description: 'The ETag received earlier' });

/** `headers` of a creation that accepts `Idempotency-Key`. */
export const IdempotencyHeaders = Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) });
/** `headers` of a change that honours `If-Match`. */
export const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(IfMatchHeader) });
