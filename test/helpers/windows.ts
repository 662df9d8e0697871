/**
 * The rate limiter's windows are fixed and aligned (a 10-second window starts on a multiple of
 * 10 s, a minute on a whole minute): a burst that straddles a window's end finds a fresh budget
 * and passes more than the limit. A test that counts a burst against a window starts it where
 * the window has at least `needMs` left, waiting for the next one when it has not.
 */
export async function withinOneWindow(windowSeconds: number, needMs: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const into = Date.now() % windowMs;
  if (into > windowMs - needMs) await new Promise((r) => setTimeout(r, windowMs - into + 50));
}
