// The operating-metrics charts of issue 19 (utilisation, queues, reclamation, fragmentation), each in
// its own module, listed here in the order the Reports view shows them after usage and cost.
import { utilisationReport } from './report-utilisation.js';
import { queueWaitReport } from './report-queue-wait.js';
import { reclamationReport } from './report-reclamation.js';
import { fragmentationReport } from './report-fragmentation.js';

export const OPERATING_REPORTS = [utilisationReport, queueWaitReport, reclamationReport, fragmentationReport];
