// Every view of the console, in navigation order. roles: who sees it in the navigation (the API
// enforces access on its own). A report view over /api/v1/reports/* is one more entry here.
import { renderFleet } from './fleet.js';
import { renderPools } from './pools.js';
import { renderQueue } from './queue.js';
import { renderLeases } from './leases.js';
import { renderDecisions } from './decisions.js';
import { renderPolicy } from './policy.js';
import { renderApprovals } from './approvals.js';
import { REPORTS, renderReports } from './reports.js';
import { renderReplay } from './replay.js';

export const VIEWS = [
  { id: 'fleet', title: 'Fleet', render: renderFleet },
  { id: 'pools', title: 'Pools and quotas', render: renderPools },
  { id: 'queue', title: 'Queue', render: renderQueue },
  { id: 'leases', title: 'Leases', render: renderLeases },
  { id: 'decisions', title: 'Decision log', render: renderDecisions },
  { id: 'approvals', title: 'Approvals', roles: ['admin', 'org_admin'], render: renderApprovals },
  { id: 'policy', title: 'Policy', roles: ['admin', 'viewer'], render: renderPolicy },
  ...(REPORTS.length ? [{ id: 'reports', title: 'Reports', render: renderReports }] : []),
  { id: 'replay', title: 'Replay', roles: ['admin', 'viewer'], render: renderReplay },
];
