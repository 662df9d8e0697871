/** Periodic jobs of the events and webhooks engine (retention). */
import type { Job } from '../jobs/scheduler.js';

export function webhookJobs(): Job[] {
  return [];
}
