/**
 * Retries below openapi-fetch: a fetch function that resends the same Request (same
 * Idempotency-Key) when the answer says "try again".
 *
 * - 429: always retried (a refused request consumed nothing), after Retry-After seconds.
 * - 5xx and network errors: retried with exponential backoff and jitter, but only when
 *   repeating is harmless: GET, HEAD, OPTIONS, PUT, DELETE, or a request that carries an
 *   Idempotency-Key on an operation that honours it (the server replays, never redoes).
 *   A 503 with Retry-After waits at least that long.
 * - 409 idempotency_in_progress (the first request with this key still runs): retried the
 *   same way, as spec 7 advises.
 * Waits are bounded: `maxRetries` attempts beyond the first, each at most `maxDelayMs`;
 * a Retry-After longer than `maxRetryAfterMs` is not waited for: the 429 is returned.
 */

export interface RetryOptions {
  /** Attempts after the first (default 3; 0 disables retries). */
  maxRetries?: number;
  /** First backoff wait for 5xx and network errors (default 250 ms), doubled each attempt. */
  baseDelayMs?: number;
  /** Ceiling of one backoff wait (default 8000 ms). */
  maxDelayMs?: number;
  /** Longest Retry-After the client waits for (default 60 s); beyond it the 429 is returned. */
  maxRetryAfterMs?: number;
  /** Called before each wait (logging, metrics). */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  attempt: number;
  method: string;
  url: string;
  status: number | null;
  error?: unknown;
  delayMs: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export type FetchLike = (request: Request) => Promise<Response>;

export interface RetryingFetchOptions extends RetryOptions {
  fetch?: FetchLike;
  /** Requests whose 5xx may be retried beyond the safe methods (set by the idempotency middleware). */
  repeatable?: WeakSet<Request>;
  /** Test hook: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  // "Equal jitter": half fixed, half random, so waits never collapse to zero.
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

function retryAfterMs(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

async function isIdempotencyInProgress(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { error?: { code?: string } };
    return body?.error?.code === 'idempotency_in_progress';
  } catch {
    return false;
  }
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // already consumed or closed
  }
}

export function createRetryingFetch(options: RetryingFetchOptions = {}): FetchLike {
  const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const maxRetries = options.maxRetries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const sleep = options.sleep ?? defaultSleep;

  return async function retryingFetch(request: Request): Promise<Response> {
    const repeatable = SAFE_METHODS.has(request.method) || (request.headers.has('idempotency-key') && (options.repeatable?.has(request) ?? false));
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      // Keep the original unread so every attempt sends the same body.
      const attemptRequest = last ? request : request.clone();
      let response: Response;
      try {
        response = await baseFetch(attemptRequest);
      } catch (error) {
        if (last || !repeatable || request.signal?.aborted) throw error;
        const delayMs = backoffDelay(attempt, baseDelayMs, maxDelayMs);
        options.onRetry?.({ attempt: attempt + 1, method: request.method, url: request.url, status: null, error, delayMs });
        await sleep(delayMs);
        continue;
      }
      if (last) return response;

      let delayMs: number | null = null;
      if (response.status === 429) {
        const wait = retryAfterMs(response) ?? backoffDelay(attempt, baseDelayMs, maxDelayMs);
        if (wait > maxRetryAfterMs) return response;
        delayMs = wait;
      } else if (response.status >= 500 && repeatable) {
        const backoff = backoffDelay(attempt, baseDelayMs, maxDelayMs);
        const hinted = retryAfterMs(response);
        if (hinted !== null && hinted > maxRetryAfterMs) return response;
        delayMs = Math.max(backoff, hinted ?? 0);
      } else if (request.headers.has('idempotency-key') && (await isIdempotencyInProgress(response))) {
        delayMs = Math.max(backoffDelay(attempt, baseDelayMs * 4, maxDelayMs), retryAfterMs(response) ?? 0);
      }
      if (delayMs === null) return response;
      await discard(response);
      options.onRetry?.({ attempt: attempt + 1, method: request.method, url: request.url, status: response.status, delayMs });
      await sleep(delayMs);
    }
  };
}
