/**
 * The strict check of the outbox: under the tests (DCM_STRICT_EVENTS=1, set in vitest.config.ts)
 * recordEvent validates each event's `data` against the schema of its type (schemas.ts) and
 * throws when it does not match, so every event the suite records proves its documented shape.
 * In production nothing is checked (the types already hold the services to the shapes, and the
 * write path pays nothing): the validators are compiled only when first needed, once per type.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { isDate, isTimestamp, isUuid } from '../lib/formats.js';
import { EVENT_DATA_SCHEMAS, type AnyEventType } from './schemas.js';

export const STRICT_EVENTS = process.env.DCM_STRICT_EVENTS === '1';

let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(type: string): ValidateFunction {
  let validate = compiled.get(type);
  if (validate) return validate;
  const schema = EVENT_DATA_SCHEMAS[type as AnyEventType];
  if (!schema) throw new Error(`recordEvent: no data schema for the event type ${type} (src/events/schemas.ts)`);
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
    ajv.addFormat('uuid', { type: 'string', validate: isUuid });
    ajv.addFormat('date-time', { type: 'string', validate: isTimestamp });
    ajv.addFormat('date', { type: 'string', validate: isDate });
  }
  validate = ajv.compile(schema);
  compiled.set(type, validate);
  return validate;
}

/** Throws when `data` (as it will be stored: through JSON) does not match the schema of `type`. */
export function assertEventData(type: string, data: unknown): void {
  const validate = validatorFor(type);
  const stored: unknown = JSON.parse(JSON.stringify(data));
  if (validate(stored)) return;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  throw new Error(`recordEvent: the data of ${type} does not match its schema (src/events/schemas.ts): ${problems.join('; ')} in ${JSON.stringify(stored)}`);
}
