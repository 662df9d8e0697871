/** Back office: webhook-related operations. */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerWebhookAdminRoutes(_app: App, _ctx: AppContext): void {}
