/**
 * The outbound worklists (recalls, confirmations) give a caller each listed patient's first name
 * and phone, and nothing else of theirs: a page's read is logged as that, here once, so the lists
 * cannot come to log it differently. The writer skips an empty page.
 */
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/actor.js';

export function logWorklistRead(ctx: Pick<AppContext, 'accessLog'>, request: { actor: Actor; id: string }, patientIds: string[]): Promise<void> {
  return ctx.accessLog.record(request.actor, { resourceType: 'patient', resourceIds: patientIds, fields: ['firstName', 'phone'], requestId: request.id });
}
