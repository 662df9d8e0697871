/** /v1/payment-plans */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerPaymentPlanRoutes(_app: App, _ctx: AppContext): void {}
