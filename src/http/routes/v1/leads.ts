/** /v1/leads */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerLeadRoutes(_app: App, _ctx: AppContext): void {}
