/**
 * A curl and a TypeScript sample for every /v1 operation, at the end of its description (so
 * /docs shows them under the operation) and as `x-codeSamples` (Redoc and other renderers).
 * Built from the operation itself: its path parameters, its query's required fields, its
 * request example, and `Idempotency-Key` where it is honoured.
 */
type Doc = Record<string, any>;

const SAMPLE_ID = '3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b';

export function addCodeSamples(path: string, method: string, op: Doc): void {
  const params = (op.parameters ?? []) as Doc[];
  const pathParams = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query' && p.required);
  const idempotent = params.some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
  const body = op.requestBody?.content?.['application/json']?.example;
  // A required query value: its example, else its first allowed value (an enum's), else by its
  // format or its name (a phone: `phone`, and voice context's `from`), else a surname (a search).
  const byName: Record<string, string> = { phone: '+393331234567', from: '+393331234567', to: '+390212345678' };
  const valueOf = (p: Doc) =>
    String(
      p.example ??
        p.schema?.examples?.[0] ??
        p.schema?.enum?.[0] ??
        p.schema?.anyOf?.[0]?.const ??
        (p.schema?.format === 'uuid' ? SAMPLE_ID : p.schema?.format === 'date-time' ? '2026-03-03T09:00:00+01:00' : (byName[p.name] ?? 'Rossi')),
    );

  const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => valueOf(pathParams.find((p) => p.name === name) ?? {}));
  const qs = query.length ? `?${query.map((p) => `${p.name}=${encodeURIComponent(valueOf(p))}`).join('&')}` : '';
  const curl = [
    `curl -s${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} "https://api.example.com/v1${concrete}${qs}"`,
    '  -H "Authorization: Bearer $DCM_API_KEY"',
    ...(idempotent ? ['  -H "Idempotency-Key: $(uuidgen)"'] : []),
    ...(body !== undefined ? ["  -H 'Content-Type: application/json'", `  -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`] : []),
  ].join(' \\\n');

  const init: string[] = [];
  const paramsInit: string[] = [];
  if (pathParams.length) paramsInit.push(`path: { ${pathParams.map((p) => `${p.name}: '${valueOf(p)}'`).join(', ')} }`);
  if (query.length) paramsInit.push(`query: { ${query.map((p) => `${p.name}: '${valueOf(p)}'`).join(', ')} }`);
  if (paramsInit.length) init.push(`params: { ${paramsInit.join(', ')} }`);
  if (body !== undefined) init.push(`body: ${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}`);
  const ts = [
    "import { createClient } from '@dental-clinic/client';",
    '',
    "const api = createClient({ baseUrl: 'https://api.example.com/v1', apiKey: process.env.DCM_API_KEY! });",
    `const result = await api.call('${op.operationId}'${init.length ? `, {\n  ${init.join(',\n  ')},\n}` : ''});`,
  ].join('\n');

  op.description = `${op.description ?? ''}\n\n**curl**\n\n\`\`\`sh\n${curl}\n\`\`\`\n\n**TypeScript** (\`@dental-clinic/client\`${idempotent ? ', which sends `Idempotency-Key` itself' : ''})\n\n\`\`\`ts\n${ts}\n\`\`\``;
  op['x-codeSamples'] = [
    { lang: 'Shell', label: 'curl', source: curl },
    { lang: 'TypeScript', label: '@dental-clinic/client', source: ts },
  ];
}
