/**
 * Schema compilation on first use. Fastify compiles every route's validators (ajv) and
 * response serializers (fast-json-stringify) while the app is built: about 2 s of CPU for
 * this API's routes, most of a start-up, and of every CLI command that builds the routes to
 * call one. Here a route's compiler is called with the same arguments, only later: the first
 * time that route validates a request part or serializes a response of that status. The
 * service compiles the rest a second after it listens (`compileAll`, createHttpService in
 * src/app.ts), between requests, so a route's first request seldom pays for it; `compileAll`
 * also surfaces a broken schema (test/http/lazy-schemas.test.ts).
 */
import { createRequire } from 'node:module';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

type Validator = ((data: unknown) => unknown) & { errors?: unknown };
type Serializer = (data: unknown) => string;
/** Fastify's `schemaController.compilersFactory.buildSerializer`. */
type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;

/**
 * Fastify's own default serializer builder (the version it depends on, resolved from it), so
 * the responses are written exactly as without this module.
 */
const fastifyDefaultSerializer = createRequire(createRequire(import.meta.url).resolve('fastify'))('@fastify/fast-json-stringify-compiler') as {
  SerializerSelector: () => SerializerFactory;
};

export class LazySchemas {
  private readonly pending = new Set<() => void>();

  /** The validator compiler for Fastify's `setValidatorCompiler`, each compile deferred. */
  validator(compile: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
    return (route) => {
      let compiled: Validator | null = null;
      const build = () => {
        compiled ??= compile(route) as Validator;
        this.pending.delete(build);
        return compiled;
      };
      this.pending.add(build);
      // Fastify reads `errors` from the function after a call that returned false (as ajv's).
      const validate: Validator = (data) => {
        const fn = compiled ?? build();
        const result = fn(data);
        validate.errors = fn.errors;
        return result;
      };
      validate.errors = null;
      return validate as ReturnType<FastifySchemaCompiler<unknown>>;
    };
  }

  /** For Fastify's `schemaController.compilersFactory.buildSerializer`: its default, each compile deferred. */
  serializerFactory(): SerializerFactory {
    const defaults = fastifyDefaultSerializer.SerializerSelector();
    return (externalSchemas, serializerOpts) => {
      const compile = defaults(externalSchemas, serializerOpts);
      return (route) => {
        let compiled: Serializer | null = null;
        const build = () => {
          compiled ??= compile(route) as unknown as Serializer;
          this.pending.delete(build);
          return compiled;
        };
        this.pending.add(build);
        const serialize: Serializer = (data) => (compiled ?? build())(data);
        return serialize as unknown as ReturnType<typeof compile>;
      };
    };
  }

  /** How many schemas no request has needed yet. */
  get uncompiled(): number {
    return this.pending.size;
  }

  /**
   * Compiles every schema not compiled yet, a few milliseconds at a time so requests in
   * flight meanwhile are served between them. Throws the first schema's error, if any.
   */
  async compileAll(sliceMs = 10): Promise<void> {
    while (this.pending.size > 0) {
      const until = performance.now() + sliceMs;
      for (const build of this.pending) {
        build();
        if (performance.now() >= until) break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
