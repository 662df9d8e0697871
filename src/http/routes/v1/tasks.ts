/** /v1/tasks */
import type { AppContext } from '../../../context.js';
import type { App } from '../../types.js';

export function registerTaskRoutes(_app: App, _ctx: AppContext): void {}
