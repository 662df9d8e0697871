/** Periodic jobs of billing (overdue installments). */
import type { Job } from '../../jobs/scheduler.js';

export function billingJobs(): Job[] {
  return [];
}
