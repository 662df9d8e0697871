/**
 * The one error type of the API (spec 7). The status depends only on the code;
 * the Italian message is for people and may change, the code is for programs.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthenticated: 401,
  api_key_invalid: 401,
  api_key_revoked: 401,
  plan_required: 403,
  insufficient_scope: 403,
  forbidden: 403,
  organization_suspended: 403,
  not_found: 404,
  method_not_allowed: 405,
  no_availability: 409,
  conflict: 409,
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const ERROR_MESSAGES: Record<ErrorCode, string> = {
  invalid_request: 'La richiesta non è valida: correggi i campi indicati.',
  unauthenticated: 'Manca l’intestazione Authorization con la chiave API (Bearer).',
  api_key_invalid: 'La chiave API non è valida.',
  api_key_revoked: 'La chiave API è stata revocata, sostituita o è scaduta: creane una nuova.',
  plan_required: 'Lo studio non ha un piano Clinic attivo.',
  insufficient_scope: 'La chiave API non ha i permessi necessari per questa operazione.',
  forbidden: 'Operazione non consentita dalle regole dello studio.',
  organization_suspended: 'L’organizzazione è sospesa.',
  not_found: 'Risorsa non trovata.',
  method_not_allowed: 'Metodo non consentito per questo indirizzo: vedi details.allow.',
  no_availability: 'L’orario richiesto non è più disponibile.',
  conflict: 'La richiesta è in conflitto con lo stato attuale della risorsa.',
  idempotency_in_progress: 'Una richiesta con la stessa Idempotency-Key è ancora in corso: riprova tra qualche secondo.',
  idempotency_key_reused: 'La Idempotency-Key è già stata usata per un’altra richiesta.',
  rate_limited: 'Troppe richieste: attendi prima di riprovare.',
  internal_error: 'Errore interno del server: riprova più tardi.',
  unavailable: 'Un servizio necessario non risponde: riprova tra qualche secondo.',
};

export interface ValidationIssue {
  path: string;
  message: string;
}

export type ErrorDetails = Record<string, unknown> | null;

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly details: ErrorDetails = null,
    message?: string,
  ) {
    super(message ?? ERROR_MESSAGES[code]);
    this.status = ERROR_STATUS[code];
  }

  /** 400 invalid_request naming the wrong fields. */
  static invalid(where: 'path' | 'query' | 'body' | 'header', issues: ValidationIssue[]): ApiError {
    return new ApiError('invalid_request', { in: where, issues });
  }

  static notFound(): ApiError {
    return new ApiError('not_found');
  }

  /** `details.reason` of a `conflict` or `forbidden` error; undefined for any other. */
  get reason(): string | undefined {
    if (this.code !== 'conflict' && this.code !== 'forbidden') return undefined;
    const reason = (this.details as Record<string, unknown> | null)?.reason;
    return typeof reason === 'string' ? reason : undefined;
  }

  /** 409 conflict with a snake_case reason, plus any extra details. */
  static conflict(reason: string, extra: Record<string, unknown> = {}, message?: string): ApiError {
    return new ApiError('conflict', { reason, ...extra }, message);
  }

  static forbidden(reason: string, extra: Record<string, unknown> = {}, message?: string): ApiError {
    return new ApiError('forbidden', { reason, ...extra }, message);
  }
}

/** An operation's closed sets of reasons (route `config.reasons`, listed in its OpenAPI description). */
export interface DeclaredReasons {
  conflict?: readonly string[];
  forbidden?: readonly string[];
}

/**
 * Reasons any operation of a kind may answer, so no operation restates them: a stale
 * `If-Match` (`version_mismatch`), and the idempotency store's three (`concurrent_request`,
 * `response_not_stored`, `response_lost`; src/db/IDEMPOTENCY.md).
 */
const COMMON_CONFLICT_REASONS = ['version_mismatch', 'concurrent_request', 'response_not_stored', 'response_lost'] as const;

/**
 * Forbidden reasons any /v1 operation may answer: `ai_disabled` (spec 7) refuses every request
 * of an agent key while the clinic's AI processing is off (src/http/plugins/caller.ts).
 */
const COMMON_FORBIDDEN_REASONS = ['ai_disabled'] as const;

/** Whether an error's reason is one the operation declared (errors without a reason always are). */
export function reasonDeclared(error: ApiError, declared: DeclaredReasons | undefined): boolean {
  const reason = error.reason;
  if (reason === undefined) return true;
  if (error.code === 'conflict') return (COMMON_CONFLICT_REASONS as readonly string[]).includes(reason) || (declared?.conflict ?? []).includes(reason);
  return (COMMON_FORBIDDEN_REASONS as readonly string[]).includes(reason) || (declared?.forbidden ?? []).includes(reason);
}
