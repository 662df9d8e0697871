/**
 * Examples for request bodies and successful responses, made from their schemas, so every
 * operation of the document shows a complete, valid-looking payload (formats, enums and
 * bounds honoured). A schema's own `examples`/`default` wins over the generated value.
 */
type Schema = Record<string, any>;

const BY_FORMAT: Record<string, string> = {
  uuid: '3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b',
  'date-time': '2026-03-02T09:30:00.000Z',
  date: '1985-04-12',
  email: 'mario.rossi@example.com',
  uri: 'https://hooks.example.com/dental',
};

/** Plausible values for common property names, used when a string has no format or enum. */
const BY_NAME: Array<[RegExp, string]> = [
  [/^externalCallId$|^callId$/, 'CA9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c'],
  [/^localDate$/, '2026-03-02'],
  [/^localTime$/, '09:30'],
  [/sourceDetail/, 'Google Ads, campagna impianti Milano'],
  [/mimeType/i, 'audio/ogg'],
  [/^apiVersion$/, 'v1'],
  [/^event(Type)?$/, 'appointment.created'],
  [/^error$/, 'timeout'],
  [/paymentMethod/, 'carta'],
  [/phone|^from$|^to$/i, '+393331234567'],
  [/email/i, 'mario.rossi@example.com'],
  [/allerg/i, 'penicillina'],
  [/medication/i, 'ibuprofene'],
  [/condition/i, 'ipertensione'],
  [/^firstName$/, 'Mario'],
  [/^lastName$/, 'Rossi'],
  [/^name$/, 'Mario Rossi'],
  [/taxCode/i, 'RSSMRA85D12F205X'],
  [/url/i, 'https://hooks.example.com/dental'],
  [/secret/i, 'whsec_3kq9Yx2b7Vn1Lm8Pz4Rt6Wd0Hs5Gj'],
  [/cursor/i, 'eyJ2IjpbIjIwMjYtMDMtMDJUMDk6MzA6MDAuMDAwWiJdfQ.Zk3x9Q'],
  [/title/i, 'Richiamare per il controllo'],
  [/city/i, 'Milano'],
  [/street/i, 'Via Torino 12'],
  [/zip/i, '20123'],
  [/country/i, 'IT'],
  [/province/i, 'MI'],
  [/summary|notes?|body|reason|description|transcript/i, 'Il paziente chiede un appuntamento per una pulizia.'],
];

/** A `name` by the kind of object it names: a facility is not called "Mario Rossi". */
const NAME_BY_TITLE: Array<[RegExp, string]> = [
  [/Facility/i, 'Sede Centro'],
  [/Clinic|Organization/i, 'Studio Dentistico Sorriso'],
  [/Calendar|Service/i, 'Igiene orale'],
  [/Doctor|Dentist/i, 'Dott.ssa Laura Bianchi'],
  [/Chair|Room/i, 'Poltrona 1'],
];

/**
 * The first value a description lists in backticks ("`manual`, `recall`…"), when it reads as
 * a code (an open list of values: the schema has no enum).
 */
function listedValue(schema: Schema): string | undefined {
  const m = /`([a-z][a-z0-9_.]*)`/.exec(String(schema.description ?? ''));
  return m?.[1];
}

function stringExample(schema: Schema, name: string, title = ''): string {
  if (schema.format && BY_FORMAT[schema.format]) return BY_FORMAT[schema.format]!;
  const byTitle = name === 'name' ? NAME_BY_TITLE.find(([re]) => re.test(title)) : undefined;
  const byName = BY_NAME.find(([re]) => re.test(name));
  // Last resort: a sentence of the clinic, never a placeholder word.
  let value = byTitle?.[1] ?? listedValue(schema) ?? (byName ? byName[1] : 'Studio Dentistico Sorriso');
  if (schema.maxLength !== undefined && value.length > schema.maxLength) value = value.slice(0, schema.maxLength);
  if (schema.minLength !== undefined && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'x');
  return value;
}

export function exampleFor(schema: Schema | undefined, name = '', depth = 0, title = ''): unknown {
  if (!schema || depth > 8) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? null;
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[key])) {
      const branch = schema[key].find((s: Schema) => s.type !== 'null') ?? schema[key][0];
      return exampleFor(branch, name, depth + 1, title);
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries<Schema>(schema.properties ?? {})) out[key] = exampleFor(prop, key, depth + 1, schema.title ?? title);
      return out;
    }
    case 'array':
      return schema.maxItems === 0 ? [] : [exampleFor(schema.items, name.replace(/s$/, ''), depth + 1, title)];
    case 'string':
      return stringExample(schema, name, title);
    case 'integer':
    case 'number':
      return schema.minimum !== undefined
        ? Math.max(schema.minimum, Math.min(schema.maximum ?? Infinity, 1))
        : schema.maximum !== undefined
          ? Math.min(1, schema.maximum)
          : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return schema.properties ? exampleFor({ ...schema, type: 'object' }, name, depth, title) : null;
  }
}
