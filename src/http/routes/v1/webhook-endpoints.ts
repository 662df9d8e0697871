/** /v1/webhook-endpoints */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerWebhookEndpointRoutes(_app: App, _ctx: AppContext): void {}
