package io.gpupool.simulation;

import io.gpupool.accounting.AccountingSettings;
import io.gpupool.accounting.PriceBook;
import io.gpupool.config.BackgroundPriority;
import io.gpupool.config.CpuBudget;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.PolicyLifecycle;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.ruleset.RuleSetLayering;
import io.gpupool.problem.ProblemException;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Policy replays as asynchronous jobs: every input is read and checked, and every policy compiled,
 * when the job is asked for (a bad one is refused then, with its file, line and field); the runs
 * themselves go one at a time per {@code gpupool.replay.threads} (default 1). With
 * {@code gpupool.replay.isolation=process} each job runs in a child JVM of its own
 * ({@link ReplayChildProcess}; not the default: on a quiet machine every child pays a fresh JVM's
 * JIT beside the lease path, docs/performance.md), so that its JIT compiling, collecting and heap are not the service's and the kernel
 * schedules it as one process at the lowest priority, in a group of its own; cancelling a job kills
 * it. With {@code isolation=thread} it runs on the runner thread at the lowest OS priority
 * ({@link BackgroundPriority}). Either way, while the rest of the machine is busy the replay holds
 * itself to {@code gpupool.replay.cpu-share} of a core ({@link CpuBudget}), so the lease path keeps
 * the cores. Jobs and their files are kept in memory, the newest {@code gpupool.replay.keep}
 * (default 20); a restart forgets them. See docs/policy-replay.md, "How a job runs".
 */
@Singleton
public class ReplayJobs {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayJobs.class);
    /** The name {@code policies} gives the uploaded rule set, to place it (else it comes last). */
    static final String UPLOAD = "upload";

    private final RecordedHistory history;
    private final PriceBook priceBook;
    private final AccountingSettings accounting;
    private final PolicyLifecycle lifecycle;
    private final ActivePolicy active;
    private final PolicyEngine engine;
    private final WorkingSet workingSet;
    private final Clock clock;
    private final SimulatedScheduler.Settings serviceSettings;
    private final int keep;
    private final double cpuShare;
    private final double machineBusy;
    private final ExecutorService runner;
    /** Null in thread mode ({@code gpupool.replay.isolation=thread}): jobs then run on the runner threads themselves. */
    private final ReplayChildProcess children;
    private final Map<String, Entry> jobs = new ConcurrentHashMap<>();

    ReplayJobs(RecordedHistory history, PriceBook priceBook, AccountingSettings accounting, PolicyLifecycle lifecycle,
               ActivePolicy active, PolicyEngine engine, WorkingSet workingSet, Clock clock,
               @Value("${gpupool.preemption.grace:30s}") Duration grace,
               @Value("${gpupool.reclamation.interval:30s}") Duration sweepEvery,
               @Value("${gpupool.scheduler.interval:5s}") Duration passEvery,
               @Value("${gpupool.preemption.candidate-nodes:32}") int candidateNodes,
               @Value("${gpupool.preemption.widen-every:30s}") Duration widenEvery,
               @Value("${gpupool.preemption.pass-budget:250ms}") Duration passBudget,
               @Value("${gpupool.replay.threads:1}") int threads,
               @Value("${gpupool.replay.keep:20}") int keep,
               @Value("${gpupool.replay.cpu-share:0.1}") double cpuShare,
               @Value("${gpupool.replay.machine-busy:0.25}") double machineBusy,
               @Value("${gpupool.replay.nice:19}") int nice,
               @Value("${gpupool.replay.isolation:thread}") String isolation,
               @Value("${gpupool.replay.work-dir:}") String workDir,
               @Value("${gpupool.replay.child-heap:2g}") String childHeap) {
        this.history = history;
        this.priceBook = priceBook;
        this.accounting = accounting;
        this.lifecycle = lifecycle;
        this.active = active;
        this.engine = engine;
        this.workingSet = workingSet;
        this.clock = clock;
        this.serviceSettings = new SimulatedScheduler.Settings(grace, sweepEvery, passEvery, candidateNodes, widenEvery, passBudget);
        this.keep = keep;
        CpuBudget.of(cpuShare, machineBusy); // checks both settings at start
        this.cpuShare = cpuShare;
        this.machineBusy = machineBusy;
        // Thread.setPriority does nothing on Linux: the runners lower their OS priority themselves
        this.runner = Executors.newFixedThreadPool(Math.max(1, threads), BackgroundPriority.of(nice).factory("gpupool-replay"));
        this.children = switch (isolation) {
            case "process" -> new ReplayChildProcess(workDir.isBlank()
                    ? Path.of(System.getProperty("java.io.tmpdir"), "gpupool-replay") : Path.of(workDir), heap(childHeap));
            case "thread" -> null;
            default -> throw new IllegalArgumentException("gpupool.replay.isolation is process or thread, was '" + isolation + "'");
        };
    }

    /** A -Xmx size (512m, 2g), checked at start rather than by a child that will not start. */
    private static String heap(String size) {
        if (!size.matches("\\d{1,7}[kKmMgG]")) {
            throw new IllegalArgumentException("gpupool.replay.child-heap is a heap size such as 512m or 2g, was '" + size + "'");
        }
        return size;
    }

    /** A prepared replay: what it runs, checked and compiled. */
    record Prepared(PoolSnapshot fleet, Workload workload, List<PolicyReplay.Candidate> candidates,
                    SimulatedScheduler.Settings settings, Duration sampleEvery, ReplayPricing pricing) {
    }

    /** A finished replay: its files by name, in the order of docs/policy-replay.md, and the summary rows. */
    record Outcome(Map<String, byte[]> files, List<ReplayReport.SummaryRow> summary) {
    }

    /**
     * The replay itself, wherever it runs (a runner thread in thread mode, {@link ReplayChildMain} in a
     * child process): the same code either way, so both give the same files.
     */
    static Outcome replay(PolicyEngine engine, Prepared p, PolicyReplay.Progress progress, java.util.function.BooleanSupplier stop) {
        PolicyReplay.Result result = PolicyReplay.run(new Simulation(engine, p.settings(), p.sampleEvery()), p.fleet(),
                p.workload(), p.candidates(), progress, stop);
        return new Outcome(ReplayOutput.files(result, p.pricing()), ReplayReport.summary(result, p.pricing()));
    }

    /** Checks {@code ask} and queues its run; refuses bad input before anything runs. */
    public ReplayJob submit(ReplayAsk ask) {
        Prepared prepared = prepare(ask);
        String id = UUID.randomUUID().toString();
        Entry entry = new Entry(id, prepared, clock.instant());
        jobs.put(id, entry);
        forgetOld();
        entry.future = runner.submit(() -> run(entry));
        return entry.view();
    }

    /** Every job still kept, newest first. */
    public List<ReplayJob> list() {
        return jobs.values().stream().sorted(java.util.Comparator.comparing((Entry j) -> j.submittedAt).reversed())
                .map(Entry::view).toList();
    }

    public ReplayJob get(String id) {
        return find(id).view();
    }

    /** The bytes of one of a finished job's files. */
    public byte[] file(String id, String name) {
        Entry e = find(id);
        byte[] content = e.files == null ? null : e.files.get(name);
        if (content == null) {
            throw ProblemException.notFound("replay file", name);
        }
        return content;
    }

    public ReplayJob cancel(String id) {
        Entry e = find(id);
        e.cancelled = true;
        if (e.future != null && e.state == ReplayJob.State.QUEUED) {
            e.future.cancel(false);
            e.finish(ReplayJob.State.CANCELLED, "cancelled before it started", clock.instant());
        }
        Process child = e.child;
        if (child != null) {
            ReplayChildProcess.kill(child); // its runner then sees the job cancelled and ends it so
        }
        return e.view();
    }

    /** Runs an already checked replay on the caller's thread (the fidelity test, tools). */
    public PolicyReplay.Result runNow(ReplayAsk ask) {
        Prepared p = prepare(ask);
        return PolicyReplay.run(new Simulation(engine, p.settings(), p.sampleEvery()), p.fleet(), p.workload(), p.candidates(),
                (run, runs, label, done) -> { }, () -> false);
    }

    Prepared prepare(ReplayAsk ask) {
        if (ask == null) {
            throw ProblemException.invalid("A replay body is required: a workload (history, workload or trace) and policies");
        }
        int workloads = (ask.history() != null ? 1 : 0) + (ask.workload() != null ? 1 : 0) + (ask.trace() != null ? 1 : 0);
        if (workloads != 1) {
            throw ProblemException.invalid("Give exactly one workload: 'history' {from, to}, 'workload' (CSV text) or 'trace' {pods, nodes}");
        }
        if ((ask.policies() == null || ask.policies().isEmpty()) && ask.upload() == null) {
            throw ProblemException.invalid("policies: name at least one ('active' or a stored version number), or give an 'upload'");
        }
        try {
            PoolSnapshot fleet;
            Workload workload;
            if (ask.history() != null) {
                RecordedHistory.Recorded recorded = history.window(ask.history().from(), ask.history().to());
                fleet = recorded.fleet();
                workload = recorded.workload();
            } else if (ask.trace() != null) {
                if (ask.trace().pods() == null || ask.trace().nodes() == null) {
                    throw ProblemException.invalid("trace: both 'pods' and 'nodes' (CSV text) are required");
                }
                AlibabaTrace.Replayable t = AlibabaTrace.load("trace.pods", ask.trace().pods(), "trace.nodes", ask.trace().nodes());
                fleet = t.fleet();
                workload = t.workload();
            } else {
                workload = WorkloadCsv.parse("workload", ask.workload(), null);
                fleet = workingSet.current();
            }
            if (ask.fleet() != null) {
                fleet = FleetImporter.applied(ask.history() != null || ask.trace() == null ? fleet : PoolSnapshot.empty(), ask.fleet());
            }
            List<PolicyReplay.Candidate> candidates = new ArrayList<>();
            List<String> named = ask.policies() == null ? List.of() : ask.policies();
            if (named.contains(UPLOAD) && ask.upload() == null) {
                throw ProblemException.invalid("policies: 'upload' names the uploaded rule set, but the body has no 'upload'");
            }
            for (String p : named) {
                candidates.add(UPLOAD.equals(p) ? uploaded(ask.upload()) : policy(p));
            }
            if (ask.upload() != null && !named.contains(UPLOAD)) {
                candidates.add(uploaded(ask.upload())); // not placed by name: it comes last
            }
            ReplayAsk.Settings s = ask.settings();
            SimulatedScheduler.Settings settings = s == null ? serviceSettings : new SimulatedScheduler.Settings(serviceSettings.grace(),
                    s.sweepEvery() == null ? serviceSettings.sweepEvery() : SimulateCommand.duration("settings.sweepEvery", s.sweepEvery()),
                    s.passEvery() == null ? serviceSettings.passEvery() : SimulateCommand.duration("settings.passEvery", s.passEvery()),
                    serviceSettings.candidateNodes(), serviceSettings.widenEvery(), serviceSettings.passBudget());
            Duration sample = s == null || s.sampleEvery() == null ? Duration.ofMinutes(10)
                    : SimulateCommand.duration("settings.sampleEvery", s.sampleEvery());
            // the price book as it stands when the job is asked for: the live cost report's rates and payer
            return new Prepared(fleet, workload, candidates, settings, sample,
                    new ReplayPricing(priceBook.prices(), accounting.idlePayer()));
        } catch (WorkloadInputException e) {
            throw ProblemException.unprocessable("The replay's input does not check: " + e.getMessage(), List.of(e.getMessage()));
        }
    }

    private static PolicyReplay.Candidate uploaded(Map<String, String> files) {
        return RuleSetPolicies.compile(UPLOAD, RuleSetLayering.resolve(files).ruleSet().withVersion(UPLOAD));
    }

    private PolicyReplay.Candidate policy(String spec) {
        if ("active".equals(spec)) {
            ActivePolicy.Active current = active.current();
            return new PolicyReplay.Candidate("active", current.policy());
        }
        long version;
        try {
            version = Long.parseLong(spec.startsWith("v") ? spec.substring(1) : spec);
        } catch (NumberFormatException e) {
            throw ProblemException.invalid("policies: 'active' or a stored version number, was '"
                    + io.gpupool.problem.FieldChecks.excerpt(spec) + "'");
        }
        lifecycle.version(version); // 404 when there is no such version
        return RuleSetPolicies.compile("v" + version, lifecycle.load(version));
    }

    private void run(Entry e) {
        if (e.cancelled) {
            return;
        }
        e.state = ReplayJob.State.RUNNING;
        PolicyReplay.Progress progress = (run, runs, label, done) -> {
            e.progress = (run + done) / runs;
            e.running = label;
        };
        try {
            Outcome outcome;
            if (children != null) {
                outcome = children.run(e.prepared, engine.limits(), cpuShare, machineBusy, progress, child -> {
                    e.child = child;
                    if (e.cancelled) { // cancelled while it started: cancel saw no child to kill
                        ReplayChildProcess.kill(child);
                    }
                });
            } else {
                CpuBudget budget = CpuBudget.of(cpuShare, machineBusy);
                outcome = replay(engine, e.prepared, progress, () -> paced(budget) || e.cancelled);
            }
            e.summary = outcome.summary();
            e.files = outcome.files(); // published last: a job is DONE with all its files or none
            e.progress = 1;
            e.finish(ReplayJob.State.DONE, null, clock.instant());
        } catch (CancellationException c) {
            e.finish(ReplayJob.State.CANCELLED, c.getMessage(), clock.instant());
        } catch (RuntimeException | OutOfMemoryError x) {
            if (e.cancelled) { // a killed child ends as a failure would
                e.finish(ReplayJob.State.CANCELLED, "cancelled while it ran", clock.instant());
            } else if (x instanceof ReplayChildProcess.Failed) {
                e.finish(ReplayJob.State.FAILED, x.getMessage(), clock.instant());
            } else {
                LOG.error("Replay job {} failed", e.id, x);
                e.finish(ReplayJob.State.FAILED, "The replay failed midway and kept nothing: " + x, clock.instant());
            }
        } finally {
            e.child = null;
        }
    }

    /** Holds the job to its CPU share while the machine is busy; true (stop) when its thread is interrupted. */
    static boolean paced(CpuBudget budget) {
        try {
            budget.pace();
            return false;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private Entry find(String id) {
        return Optional.ofNullable(jobs.get(id)).orElseThrow(() -> ProblemException.notFound("replay job", id));
    }

    private void forgetOld() {
        if (jobs.size() <= keep) {
            return;
        }
        jobs.values().stream().filter(j -> j.finishedAt != null).sorted(java.util.Comparator.comparing(j -> j.submittedAt))
                .limit(jobs.size() - keep).map(j -> j.id).toList().forEach(jobs::remove);
    }

    @PreDestroy
    void stop() {
        jobs.values().forEach(j -> j.cancelled = true);
        if (children != null) {
            children.killAll(); // a child outlives a JVM that ends without killing it only until it sees its stdin close
        }
        runner.shutdownNow();
    }

    /** One job's mutable state, written by its runner thread and read by callers. */
    private static final class Entry {
        final String id;
        final Prepared prepared;
        final Instant submittedAt;
        volatile ReplayJob.State state = ReplayJob.State.QUEUED;
        volatile double progress;
        volatile String running;
        volatile boolean cancelled;
        volatile Instant finishedAt;
        volatile String error;
        volatile List<ReplayReport.SummaryRow> summary;
        volatile Map<String, byte[]> files;
        volatile Future<?> future;
        /** The child process running the job, while one does (process mode). */
        volatile Process child;

        Entry(String id, Prepared prepared, Instant submittedAt) {
            this.id = id;
            this.prepared = prepared;
            this.submittedAt = submittedAt;
        }

        void finish(ReplayJob.State how, String why, Instant at) {
            error = why;
            finishedAt = at;
            state = how;
        }

        ReplayJob view() {
            Map<String, byte[]> f = files;
            return new ReplayJob(id, state, progress, running, prepared.workload().description(),
                    prepared.candidates().stream().map(PolicyReplay.Candidate::label).toList(), submittedAt, finishedAt, error,
                    state == ReplayJob.State.DONE ? summary : List.of(), f == null ? List.of() : new ArrayList<>(new LinkedHashMap<>(f).keySet()));
        }
    }
}
