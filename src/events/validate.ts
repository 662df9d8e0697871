/**
 * The strict check of the outbox: under the tests (DCM_STRICT_EVENTS=1, set in vitest.config.ts)
 * recordEvent validates each event's `data` against the schema of its type and throws when it does
 * not match, so every event the suite records proves its documented shape. The schemas are
 * declared by the modules and assembled above them (src/event-schemas.ts); createContext hands
 * them over at start (useEventSchemas), so the outbox imports no module.
 * In production nothing is checked (the types already hold the services to the shapes, and the
 * write path pays nothing): the validators are compiled only when first needed, once per type.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { isDate, isTimestamp, isUuid } from '../lib/formats.js';

export const STRICT_EVENTS = process.env.DCM_STRICT_EVENTS === '1';

let schemas: Readonly<Record<string, TSchema>> | null = null;
let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

/** The schema of `data` for every event type (src/event-schemas.ts), given at start by createContext. */
export function useEventSchemas(all: Readonly<Record<string, TSchema>>): void {
  if (schemas === all) return;
  schemas = all;
  compiled.clear();
}

function validatorFor(type: string): ValidateFunction {
  let validate = compiled.get(type);
  if (validate) return validate;
  if (!schemas) throw new Error('recordEvent: no event schemas to check against (createContext gives them: useEventSchemas)');
  const schema = schemas[type];
  if (!schema) throw new Error(`recordEvent: no data schema for the event type ${type} (src/modules/<noun>/events.ts)`);
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
  throw new Error(`recordEvent: the data of ${type} does not match its schema (src/event-schemas.ts): ${problems.join('; ')} in ${JSON.stringify(stored)}`);
}
