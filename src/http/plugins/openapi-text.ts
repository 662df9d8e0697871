/** The long descriptions of the OpenAPI documents: the rules an integrator reads first. */
export const V1_DESCRIPTION = `
JSON API for a dental clinic: patients, agenda, leads, calls, chat, tasks, payments, and signed webhooks.

**Authentication.** Every request carries \`Authorization: Bearer <API_KEY>\`. Keys start with \`dcm_live_\` (live clinic) or \`dcm_test_\` (test clinic: nothing is sent outside). A key sees only its clinic, and only its facilities when limited to some; anything else is \`404 not_found\`.

**Errors.** Every error has the shape \`{ "error": { "code", "message", "details", "requestId" } }\`. \`code\` is stable; \`message\` is Italian and may change. For \`invalid_request\`, \`details.in\` is \`path\`, \`query\`, \`body\` or \`header\` and \`details.issues\` lists every wrong field as \`{ path, message }\` (\`path\` is dotted: \`address.zip\`, \`allergies.3\`). One \`400\` names every wrong field, the schema's and the operation's own rules' together: a body its schema refuses is also given the rules that need no database (a phone that is no phone number, opening hours out of order, a pause beyond its week, decimals, teeth, discounts, totals), on the parts that parsed. Checks that need the database (a reference to another record: \`patientId\`, \`doctorId\`, …) run only on a body that passed the schema. Unknown body or query fields are refused, and values are never coerced: \`"12"\` is not a number. In the path and query an integer is written in decimal digits only (\`limit=1e2\`, \`+5\`, \`0x10\`, \`5.0\` are refused). A body is UTF-8 JSON: invalid UTF-8 or a lone surrogate (\`"\\ud800"\`) is refused. \`Authorization\`, \`Idempotency-Key\`, \`Content-Type\` and \`Host\` are sent once: a repeated one is refused (\`details.issues\` names it).

**Connections.** By default a request's headers must arrive within 10 s and the whole request within 30 s (a document upload link's body instead must keep coming at 1 KiB/s or more); a request cut off by these limits is answered \`400 invalid_request\` (when no answer was sent yet) and its connection closed. An idle kept-alive connection is closed after 72 s. One client address may hold 256 open connections: one more is answered \`503 unavailable\` and closed. The deployment may set other values.

<a id="rate-limits"></a>**Rate limits.** Per clinic 100 requests per 10 s and 20,000 per UTC day; per key 60 per 10 s and 12,000 per UTC day. Windows are fixed and aligned (10-second windows start on multiples of 10 s, days at 00:00 UTC). Every response has \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (epoch seconds) for the tightest window (the one with the fewest requests left); a \`429\` adds \`Retry-After\` and consumes nothing. Failed authentications are limited to 30 per minute per client address.

<a id="idempotency"></a>**Idempotency.** Creations accept \`Idempotency-Key\` (1-255 characters). The same key within 24 hours replays the first 2xx response (status, body, \`ETag\`) with \`Idempotent-Replayed: true\` and does no work. While the first request runs, the same key gets \`409 idempotency_in_progress\`; with another operation, body or API key, \`422 idempotency_key_reused\`. A response that held a secret shown once is not stored: its replay is \`409 conflict\`, reason \`response_not_stored\`. An error response is not stored: retry with the same key after fixing the request. After a \`5xx\` (the database went away mid-request, or its answer to the work's commit was lost), the same key runs the work again only if none of it was committed; if it was, the key answers \`409 conflict\`, reason \`response_lost\`: the first request did its work but its response is gone, so read the resource (list it, or look it up) before creating it again with a new key.

**Versions.** Versioned resources carry an \`ETag\`; send it back as \`If-Match\` on a modification: if the resource changed meanwhile, \`409 conflict\`, reason \`version_mismatch\`.

<a id="pages"></a>**Pages.** Lists answer \`{ data, nextCursor }\`; pass \`nextCursor\` unchanged as \`cursor\` (max 500 characters). A cursor is bound to its list and filters; a tampered or foreign one is \`400\`. Each operation states its order.

**Formats.** Ids are UUIDs in any letter case. Input timestamps are ISO 8601 with \`T\`, optional seconds and fraction, and \`Z\` or \`±hh:mm\`; output timestamps are UTC. Phones are accepted in any format (without a country prefix they are read as Italian numbers) and returned in E.164 (\`+39…\`).
`.trim();

export const ADMIN_DESCRIPTION = `
The back office of the service: organizations, clinics, facilities, staff, API keys and the access log, and the clinic's own operations on its records. Authenticated by the deployment's \`ADMIN_TOKEN\` as a bearer token. Not for integrations: they use the /v1 API with an API key.
`.trim();

/** Descriptions of the tags (API areas of spec 1 and back-office areas), shown as sections of /docs. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Meta: 'The service itself and the key calling it: health, the API description, who the key is, its clinic, its rate limits and the event catalogue it may subscribe to.',
  Clinic: 'The clinic as an integration needs it: facilities, doctors, chairs, staff profiles and calendars (the bookable services).',
  Facilities: 'The clinic and its facilities: where it is and its opening hours.',
  Patients: 'Create, read and search patients; look a caller up by phone.',
  Agenda: 'Appointments and calendar availability.',
  Appointments: 'Appointments and calendar availability.',
  'Agenda (appointments)': 'Appointments: list, read, book a free slot, reschedule, cancel; the free slots of a calendar.',
  'Agenda (back office)': 'Appointments, calendars, facilities, chat, tasks and billing records of a clinic.',
  People: 'Patients and leads of a clinic: read, correct, archive, erase, import, convert.',
  'Webhooks (back office)': 'Webhook destinations and deliveries of a clinic.',
  Calendars: 'Calendars and their free slots.',
  Quotes: 'Treatment plans (quotes) presented to patients.',
  'Invoices and payments': 'Payment plans with their installments, invoices and payments.',
  Billing: 'Payment plans with their installments, invoices and payments.',
  Documents: 'Documents of a patient.',
  Tasks: 'Tasks of the clinic staff.',
  'Sales contacts': 'Sales leads: people who are not patients yet.',
  Leads: 'Sales leads: people who are not patients yet.',
  'Chat messages': 'Chat conversations with the bot and their messages.',
  Conversations: 'Chat conversations with the bot and their messages.',
  'Phone calls': 'Finished phone calls registered by a voice agent or a switchboard.',
  Calls: 'Finished phone calls registered by a voice agent or a switchboard.',
  'Voice agent':
    'Operations for a voice agent answering the clinic phone: the context of a ringing call and the handoff to a person. With slot holds (Agenda) and POST /calls it runs a whole call.',
  Webhooks: 'Webhook destinations, events and deliveries.',
  Recalls: 'Outbound agenda work: the patients due for their check-up or hygiene visit, in the order to call them, and the attempts.',
  Statistics: 'What the agenda achieved, week by week in the clinic’s time zone: confirmations, no-shows, cancellations, waitlist refills, recalls.',
  Confirmations:
    'Outbound agenda work: the appointments whose patient has not confirmed yet, soonest first, and the answers, which confirm, cancel (the slot freed and offered to the waitlist) or hand the appointment to the clinic.',
  Waitlist: 'Outbound agenda work: people waiting for a slot, and the freed slots offered to them one at a time.',
  'Webhooks and events': 'Webhook destinations, events and deliveries.',
  Events: 'Events of the last 30 days, in the webhook envelope.',
  Tenants: 'Organizations, clinics, facilities, doctors, chairs and staff profiles.',
  'API keys': 'Issue, list and revoke the API keys of a clinic.',
  'Access log': 'Who read free text or clinical data, and when.',
};

export const errorExample = (code: string, message: string, details: Record<string, unknown> | null = null) => ({
  error: { code, message, details, requestId: 'req_3f6c1d2e-8b1a-4c55-9a0e-6f2b7d9c1a44' },
});

/** One example error per status, shown beside each operation's error responses. */
export const ERROR_EXAMPLES: Record<number, unknown> = {
  400: errorExample('invalid_request', 'Richiesta non valida', { in: 'body', issues: [{ path: 'firstName', message: 'deve contenere almeno 1 carattere' }] }),
  401: errorExample('api_key_invalid', 'Chiave API non valida'),
  403: errorExample('insufficient_scope', 'La chiave non ha i permessi necessari', { requiredScopes: ['clinic:read'] }),
  404: errorExample('not_found', 'Risorsa non trovata'),
  409: errorExample('conflict', 'La risorsa è cambiata nel frattempo', { reason: 'version_mismatch' }),
  422: errorExample('idempotency_key_reused', 'Idempotency-Key già usata per un’altra richiesta'),
  429: errorExample('rate_limited', 'Troppe richieste: riprova tra qualche secondo'),
  500: errorExample('internal_error', 'Errore interno del server'),
  503: errorExample('unavailable', 'Servizio momentaneamente non disponibile'),
};
