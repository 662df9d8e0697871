/**
 * The process's log options (pino's, which Fastify takes as they are): JSON lines by default,
 * LOG_FORMAT=pretty for people (pino-pretty, in pino's transport thread). Authorization is
 * redacted wherever a request's headers would be logged.
 */
import type { LoggerOptions } from 'pino';
import type { Config } from '../config.js';

export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>): LoggerOptions {
  return {
    level: config.logLevel,
    redact: ['req.headers.authorization', 'headers.authorization'],
    ...(config.logFormat === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,reqId', singleLine: true } } }
      : {}),
  };
}
