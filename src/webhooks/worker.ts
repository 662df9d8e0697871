/** The delivery worker: claims due deliveries and sends them (see README.md beside this file). */
import type { AppContext } from '../context.js';
import type { Running } from '../jobs/scheduler.js';

export async function startDeliveryWorker(_ctx: AppContext): Promise<Running> {
  return { async stop() {} };
}
