// The operating-metrics charts of issue 19 (queues, reclamation, fragmentation), each in its own
// module, listed here in the order the Reports view shows them after usage and cost.
import { queueWaitReport } from './report-queue-wait.js';
import { reclamationReport } from './report-reclamation.js';
import { fragmentationReport } from './report-fragmentation.js';

export const OPERATING_REPORTS = [queueWaitReport, reclamationReport, fragmentationReport];
