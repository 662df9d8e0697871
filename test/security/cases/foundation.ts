import type { MatrixCase } from '../matrix.js';

export const cases: MatrixCase[] = [
  {
    operationId: 'getFacility',
    method: 'GET',
    scopes: ['clinic:read'],
    resource: true,
    prepare: async (_server, tenant) => ({ path: `/v1/facilities/${tenant.facilityIds[0]}` }),
  },
];
