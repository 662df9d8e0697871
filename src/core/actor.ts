/**
 * Who acts (spec 5): one `Actor` per request, built once (by the v1 gate from the API key, or
 * by the back office for the clinic in its path) and passed to services as `(trx, actor, input)`.
 * Services read the caller from it, never from the HTTP request, so the same rule holds for
 * the API, the back office, the CLI and the worker.
 */

/** `dcm_live_…` or `dcm_test_…` (src/modules/auth/tokens.ts). */
export type KeyKind = 'live' | 'test';

/** What a key is issued for: a plain integration, a chat bot or a voice agent. */
export const AGENT_KINDS = ['none', 'chat_bot', 'voice_agent'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/** The identity an API key gives (cached with the key for a second; the same in every process). */
export interface AuthContext {
  keyId: string;
  kind: KeyKind;
  clinicId: string;
  organizationId: string;
  /** A test clinic: nothing is sent outside (spec 1.4). */
  testMode: boolean;
  scopes: ReadonlySet<string>;
  /** null: every facility of the clinic. Lower-case ids. */
  facilityIds: readonly string[] | null;
  aiEnabled: boolean;
  /** The clinic's IANA time zone (`clinics.timezone`), read with the key: local dates need no query. */
  timeZone: string;
  agent: AgentKind;
}

/** The structured logger an actor carries (pino's shape, so Fastify's request logger is one). */
export interface ActorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The process-wide values every actor carries, so services take no loose arguments for them. */
export interface ActorEnvironment {
  /** Default region for phone numbers written without a country code (`IT`; checked when the configuration is read). */
  region: string;
  /** Secret for signing page cursors; the same in every process. */
  cursorSecret: string;
}

export interface Actor extends Omit<AuthContext, 'keyId' | 'kind'>, ActorEnvironment {
  /** `api_key`: a /v1 request; `back_office`: the clinic's own staff (every scope, every facility). */
  via: 'api_key' | 'back_office';
  /** The API key; null for the back office, which acts with the admin token. */
  keyId: string | null;
  kind: KeyKind | null;
  /** The request id (`X-Request-Id`), for logs and the access log. */
  requestId: string;
  /** A logger whose lines carry the request id. */
  log: ActorLogger;
}

export function apiKeyActor(auth: AuthContext, env: ActorEnvironment, requestId: string, log: ActorLogger): Actor {
  return { ...auth, ...env, via: 'api_key', requestId, log };
}

/** Whether the actor holds a scope (the back office holds them all). */
export function can(actor: Pick<Actor, 'scopes'>, scope: string): boolean {
  return actor.scopes.has(scope);
}

/** The key of an operation only API keys perform (webhook destinations belong to the key that made them). */
export function apiKeyId(actor: Pick<Actor, 'keyId'>): string {
  if (actor.keyId === null) throw new Error('an API-key operation was called without a key (back office)');
  return actor.keyId;
}

/** Who books through the API, as a calendar's `bookableBy` names it: plain keys `api`, agents `bot` / `voice`. */
type BookingChannel = 'api' | 'bot' | 'voice';
export const BOOKING_CHANNELS: readonly BookingChannel[] = ['api', 'bot', 'voice'];

const CHANNEL_OF: Record<AgentKind, BookingChannel> = { none: 'api', chat_bot: 'bot', voice_agent: 'voice' };

/**
 * The channel an API key books through; null for the back office and for callers that carry no
 * key (services called with a bare tenant scope), to which a calendar's `bookableBy` does not apply.
 */
export function bookingChannel(who: { via?: Actor['via']; agent?: AgentKind }): BookingChannel | null {
  if (who.via !== 'api_key' || who.agent === undefined) return null;
  return CHANNEL_OF[who.agent];
}

/** The origin an agent key stamps on what it books, moves or cancels (so the clinic sees what an agent did), or null for any other caller. */
export function agentOrigin(who: { via?: Actor['via']; agent?: AgentKind }): 'bot' | 'voice' | null {
  const channel = bookingChannel(who);
  return channel === 'bot' || channel === 'voice' ? channel : null;
}

/** A logger that writes nothing: for seeds and benchmarks that act with no request to report to. */
export const SILENT_LOGGER: ActorLogger = { info: () => {}, warn: () => {}, error: () => {} };
