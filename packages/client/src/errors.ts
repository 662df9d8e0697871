/** The typed error of the client: every non-2xx answer (and a network failure) becomes one. */

/** Stable error codes of spec 7; `code` may also be another string (a newer server). */
export type KnownErrorCode =
  | 'invalid_request'
  | 'unauthenticated'
  | 'api_key_invalid'
  | 'api_key_revoked'
  | 'plan_required'
  | 'insufficient_scope'
  | 'forbidden'
  | 'organization_suspended'
  | 'not_found'
  | 'no_availability'
  | 'conflict'
  | 'idempotency_in_progress'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

/** Codes the client makes itself: no answer at all, or an answer without the error envelope. */
export type ClientErrorCode = 'network_error' | 'unexpected_response';

export type ErrorCode = KnownErrorCode | ClientErrorCode | (string & {});

export interface ApiClientErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown> | null;
  requestId?: string | null;
  method?: string;
  url?: string;
  retryAfterSeconds?: number | null;
  cause?: unknown;
}

export class ApiClientError extends Error {
  override readonly name = 'ApiClientError';
  /** HTTP status; 0 when no answer arrived (network_error). */
  readonly status: number;
  /** Stable code (spec 7): use it in program logic, never `message`. */
  readonly code: ErrorCode;
  /** Extra data: `reason`, `requiredScopes`, `issues`, `patientId`, `alternatives`… */
  readonly details: Record<string, unknown> | null;
  /** The X-Request-Id of the failed request: quote it when reporting a problem. */
  readonly requestId: string | null;
  readonly method: string | undefined;
  readonly url: string | undefined;
  /** Seconds from Retry-After, when the server sent it (429, 503). */
  readonly retryAfterSeconds: number | null;

  constructor(init: ApiClientErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? null;
    this.requestId = init.requestId ?? null;
    this.method = init.method;
    this.url = init.url;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
  }

  /** `details.reason` of a 403 forbidden or a 409 conflict (e.g. `version_mismatch`). */
  get reason(): string | null {
    const r = this.details?.reason;
    return typeof r === 'string' ? r : null;
  }

  /** The caller may try again later with the same request (and the same Idempotency-Key). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500 || this.code === 'idempotency_in_progress';
  }

  /** Builds the error from a non-2xx response and its already-read body (parsed JSON or text). */
  static fromResponse(response: Response, body: unknown, method?: string): ApiClientError {
    const envelope = (body && typeof body === 'object' ? (body as Record<string, unknown>).error : undefined) as Record<string, unknown> | undefined;
    const headerId = response.headers.get('x-request-id');
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    if (envelope && typeof envelope.code === 'string') {
      return new ApiClientError({
        status: response.status,
        code: envelope.code,
        message: typeof envelope.message === 'string' ? envelope.message : envelope.code,
        details: envelope.details && typeof envelope.details === 'object' ? (envelope.details as Record<string, unknown>) : null,
        requestId: typeof envelope.requestId === 'string' ? envelope.requestId : headerId,
        method,
        url: response.url || undefined,
        retryAfterSeconds: retryAfter,
      });
    }
    const text = typeof body === 'string' ? body.slice(0, 200) : '';
    return new ApiClientError({
      status: response.status,
      code: 'unexpected_response',
      message: `HTTP ${response.status}${text ? `: ${text}` : ''}`,
      requestId: headerId,
      method,
      url: response.url || undefined,
      retryAfterSeconds: retryAfter,
    });
  }

  static network(cause: unknown, method?: string, url?: string): ApiClientError {
    const message = cause instanceof Error ? cause.message : String(cause);
    return new ApiClientError({ status: 0, code: 'network_error', message: `Network error: ${message}`, method, url, cause });
  }
}

export function isApiClientError(value: unknown): value is ApiClientError {
  return value instanceof ApiClientError;
}

/** Retry-After as seconds: an integer, or an HTTP date. null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
