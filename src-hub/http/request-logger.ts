/**
 * Fastify's per-request logger, made lazily. Fastify gives every request a child of the Hub's
 * logger (bound to its request id); pino builds a child's bindings (through the redaction paths)
 * at once, on every request, though at the Hub's usual levels most requests log nothing. This
 * logger makes that child the first time something is logged at a level that is enabled, so a
 * line logged is exactly the line the eager child would have written.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type LogArgs = Parameters<Logger['info']>;

class LazyRequestLogger {
  private made: Logger | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly own: Bindings,
  ) {}

  private real(): Logger {
    return (this.made ??= this.parent.child(this.own));
  }

  private log(level: Level, args: LogArgs): void {
    // a request child inherits its parent's level (a route-level level is made eagerly, below)
    if (this.made === null && !this.parent.isLevelEnabled(level)) return;
    this.real()[level](...args);
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: LogArgs): void {
    this.log('fatal', args);
  }
  error(...args: LogArgs): void {
    this.log('error', args);
  }
  warn(...args: LogArgs): void {
    this.log('warn', args);
  }
  info(...args: LogArgs): void {
    this.log('info', args);
  }
  debug(...args: LogArgs): void {
    this.log('debug', args);
  }
  trace(...args: LogArgs): void {
    this.log('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options) as unknown as FastifyBaseLogger;
  }
}

/** Fastify's childLoggerFactory: lazy unless the route sets its own level or serializers. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const parent = logger as unknown as Logger;
  if (options.level !== undefined || options.serializers !== undefined)
    return parent.child(bindings, options) as unknown as FastifyBaseLogger;
  return new LazyRequestLogger(parent, bindings) as unknown as FastifyBaseLogger;
}
