/**
 * Request validation. Two ajv instances: bodies are checked strictly (a "12" is not a
 * number: type-confused input is refused, never silently corrected), while path, query
 * and headers, which are text on the wire, are coerced to the schema's types. Ajv turns
 * any text JavaScript reads as a whole number into an integer (`1e2`, `+5`, `0x10`, ` 5`,
 * `5.0`); an integer on the wire is written in decimal digits only (an optional `-`), so
 * those spellings are refused before ajv sees them (`integerSpellingErrors`).
 * allErrors: every wrong field is reported, not only the first.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { isDate, isEmail, isTimestamp, isUuid } from '../lib/formats.js';
import { ApiError, type ValidationIssue } from '../core/errors.js';

function makeAjv(coerce: boolean, useDefaults = true): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    useDefaults,
    removeAdditional: false,
    strict: false,
    allowUnionTypes: true,
  });
  ajv.addFormat('uuid', { type: 'string', validate: isUuid });
  ajv.addFormat('date-time', { type: 'string', validate: isTimestamp });
  ajv.addFormat('date', { type: 'string', validate: isDate });
  ajv.addFormat('email', { type: 'string', validate: isEmail });
  ajv.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s) });
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);
/** Agent tools' arguments: JSON like a body, checked without filling defaults (the operation's route does). */
const argumentsAjv = makeAjv(false, false);

/** A checker of a tool's arguments against its input schema: every wrong argument, or none. */
export function argumentsChecker(schema: object): (args: unknown) => ValidationIssue[] {
  const validate = argumentsAjv.compile(schema);
  return (args) => (validate(args) ? [] : toIssues(validate.errors ?? []));
}

const DECIMAL_INTEGER = /^-?[0-9]+$/;

/** The properties of a path, query or header schema declared as integers (nullable ones too). */
function integerProperties(schema: Record<string, any>): string[] {
  return Object.entries<Record<string, any>>(schema.properties ?? {})
    .filter(([, s]) => s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer')))
    .map(([name]) => name);
}

/** Errors, as ajv reports them, for integer properties spelled other than in decimal digits. */
function integerSpellingErrors(data: Record<string, unknown> | null | undefined, names: string[]): ErrorObject[] {
  const errors: ErrorObject[] = [];
  for (const name of names) {
    const value = data?.[name];
    if (typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
      errors.push({ keyword: 'type', instancePath: `/${name}`, schemaPath: '#/type', params: { type: 'integer' } });
    }
  }
  return errors;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return bodyAjv.compile(schema as object) as ValidateFunction;
  const validate = textAjv.compile(schema as object);
  const integers = integerProperties(schema as Record<string, any>);
  if (integers.length === 0) return validate as ValidateFunction;
  // Same contract as an ajv function (boolean, errors on the function), every wrong field named.
  const checked = (data: Record<string, unknown>) => {
    const spelling = integerSpellingErrors(data, integers);
    const valid = validate(data);
    checked.errors = spelling.length > 0 ? [...spelling, ...(validate.errors ?? [])] : validate.errors;
    return valid && spelling.length === 0;
  };
  checked.errors = null as ErrorObject[] | null | undefined;
  return checked;
};

const FORMAT_NAMES: Record<string, string> = {
  uuid: 'un UUID',
  'date-time': 'una data e ora ISO 8601 (es. 2026-03-02T09:30:00Z)',
  date: 'una data valida AAAA-MM-GG',
  email: 'un indirizzo email valido',
  uri: 'un URL valido',
};

const TYPE_NAMES: Record<string, string> = {
  string: 'un testo',
  number: 'un numero',
  integer: 'un numero intero',
  boolean: 'true o false',
  object: 'un oggetto',
  array: 'una lista',
  null: 'null',
};

function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => TYPE_NAMES[t] ?? t).join(' o ');
}

function issueMessage(error: ErrorObject): string {
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'required':
      return 'campo obbligatorio';
    case 'additionalProperties':
      return 'campo non previsto';
    case 'type':
      return `deve essere ${describeType(p.type)}`;
    case 'minLength':
      return `deve contenere almeno ${p.limit} caratteri`;
    case 'maxLength':
      return `deve contenere al massimo ${p.limit} caratteri`;
    case 'minItems':
      return `deve contenere almeno ${p.limit} elementi`;
    case 'maxItems':
      return `deve contenere al massimo ${p.limit} elementi`;
    case 'minimum':
      return `deve essere maggiore o uguale a ${p.limit}`;
    case 'maximum':
      return `deve essere minore o uguale a ${p.limit}`;
    case 'exclusiveMinimum':
      return `deve essere maggiore di ${p.limit}`;
    case 'exclusiveMaximum':
      return `deve essere minore di ${p.limit}`;
    case 'enum':
      return `deve essere uno tra: ${(p.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    case 'const':
      return `deve essere ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return `deve essere ${FORMAT_NAMES[p.format] ?? p.format}`;
    case 'pattern':
      return 'formato non valido';
    case 'uniqueItems':
      return 'non deve contenere elementi ripetuti';
    case 'minProperties':
      return `deve contenere almeno ${p.limit} campi`;
    default:
      return 'valore non valido';
  }
}

function issuePath(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const p = error.params as Record<string, any>;
  if (error.keyword === 'required') segments.push(p.missingProperty);
  if (error.keyword === 'additionalProperties') segments.push(p.additionalProperty);
  return segments.join('.');
}

/** ajv errors to `details.issues`: one issue per wrong field, branch noise of unions removed. */
export function toIssues(errors: ErrorObject[]): ValidationIssue[] {
  const byPath = new Map<string, ValidationIssue>();
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    const path = issuePath(error);
    if (!byPath.has(path)) byPath.set(path, { path, message: issueMessage(error) });
  }
  if (byPath.size === 0 && errors.length > 0) {
    const first = errors[0]!;
    byPath.set(issuePath(first), { path: issuePath(first), message: issueMessage(first) });
  }
  return [...byPath.values()];
}

/**
 * preValidation of an operation that takes no body: nothing, `null` or `{}` is accepted; a
 * body with fields is `400 invalid_request` naming each (as `additionalProperties: false`
 * names an unknown field), anything else naming the body. So no operation silently ignores
 * input it does not read. No body schema is declared: the OpenAPI operation has no requestBody.
 */
export async function refuseBody(request: { body: unknown }): Promise<void> {
  const body = request.body;
  if (body === undefined || body === null) return;
  if (typeof body === 'object' && !Array.isArray(body)) {
    const fields = Object.keys(body);
    if (fields.length > 0)
      throw ApiError.invalid(
        'body',
        fields.map((path) => ({ path, message: 'campo non previsto: questa operazione non ha corpo' })),
      );
    return;
  }
  throw ApiError.invalid('body', [{ path: '', message: 'questa operazione non ha corpo' }]);
}
