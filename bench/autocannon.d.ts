// autocannon ships no types; the benchmarks use a small part of its API, typed loosely here.
declare module 'autocannon' {
  const autocannon: (options: Record<string, unknown>) => Promise<any>;
  export default autocannon;
}
