/** /v1/webhook-deliveries */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerWebhookDeliveryRoutes(_app: App, _ctx: AppContext): void {}
