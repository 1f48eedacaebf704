package io.gpupool.governance;

import io.micronaut.context.event.ApplicationEventPublisher;
import jakarta.inject.Inject;
import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Compilation;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.ruleset.LayeredRuleSet;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetComparison;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetHash;
import io.gpupool.problem.ProblemException;
import io.gpupool.store.row.PolicyActiveRepository;
import io.gpupool.store.row.PolicyActiveRow;
import io.gpupool.store.row.RuleSetVersionRepository;
import io.gpupool.store.row.RuleSetVersionRow;
import io.gpupool.store.WriterLock;
import io.gpupool.policy.engine.PolicyMessage;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Context;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PostConstruct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Upload, activation and rollback of rule-set versions. Guarantees: a version is stored only after
 * it validated; the active pointer and its history record change in one transaction; the compiled
 * policy is swapped in memory only after that commit; a failed validation or activation leaves the
 * active version untouched and is itself recorded. Lifecycle operations are serialised (they are
 * rare), which also keeps version numbers and the history chain dense.
 */
@Context
public class PolicyLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyLifecycle.class);

    private final RuleSetVersionRepository versions;
    private final PolicyActiveRepository activeRow;
    private final PolicyHistory history;
    private final PolicyValidator validator;
    private final ActivePolicy active;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;
    private final WriterLock writerLock;
    /** Lazily: the live fleet is the working set's, which need not exist before the default set is stored. */
    private final BeanProvider<LiveFleetCheck> fleetCheck;
    private final ReentrantLock lock = new ReentrantLock(true);
    /** Field-injected so that the constructor tests use stays as it is; without a context nobody counts. */
    @Inject
    ApplicationEventPublisher<PolicyValidationFailed> refused = ApplicationEventPublisher.noOp();

    PolicyLifecycle(RuleSetVersionRepository versions, PolicyActiveRepository activeRow, PolicyHistory history,
                    PolicyValidator validator, ActivePolicy active, TransactionOperations<Connection> tx, Clock clock,
                    WriterLock writerLock, BeanProvider<LiveFleetCheck> fleetCheck) {
        this.versions = versions;
        this.fleetCheck = fleetCheck;
        this.writerLock = writerLock;
        this.activeRow = activeRow;
        this.history = history;
        this.validator = validator;
        this.active = active;
        this.tx = tx;
        this.clock = clock;
    }

    /** On an empty database the default rule set becomes version 1 and is activated; else the active version is loaded. */
    @PostConstruct
    void start() {
        writerLock.acquire(); // the writer alone stores the default set on an empty database
        tx.executeRead(s -> { // whichever of this and the working set starts first: a clear message, not a fence
            writerLock.checkSameDatabase(s.getConnection());
            return null;
        });
        Optional<PolicyActiveRow> pointer = tx.executeRead(s -> activeRow.findById(1));
        if (pointer.isEmpty()) {
            RuleSet defaults = RuleSetFiles.defaultRuleSet();
            // Not checked against a fleet: there is none yet (the shipped set is checked on the shipped fleet by its tests).
            UploadResult uploaded = upload(defaults.files(), "Default rule set shipped with gpupool", "system", false);
            activate(uploaded.version().version(), "system", "Activate the default rule set", false, false);
            LOG.info("Default rule set stored and activated as {}", uploaded.version().label());
            return;
        }
        long version = pointer.get().version();
        RuleSet ruleSet = RuleSetCodec.decode(version, tx.executeRead(s -> versions.findById(version)).orElseThrow().files());
        // Compile in the background so the server answers (inventory, health) while Drools warms up;
        // anything that needs the policy waits in ActivePolicy.current(). Compile only: the version
        // passed validation (lint, tests) when it was activated.
        Thread loader = new Thread(() -> {
            Compilation compilation = new PolicyCompiler().compile(ruleSet);
            if (compilation.policy().isPresent()) {
                active.initial(version, compilation.policy().get());
                LOG.info("Active policy {} loaded", PolicyVersion.label(version));
            } else {
                active.failed(PolicyVersion.label(version) + " no longer compiles: " + compilation.messages());
                LOG.error("Active policy {} does not compile: {}", PolicyVersion.label(version), compilation.messages());
            }
        }, "gpupool-policy-loader");
        loader.setDaemon(true);
        loader.start();
    }

    /**
     * Validates and stores a rule set. Checked against the live fleet too: its FLEET warnings are
     * shown, a COHERENCE error (a lease it would take back right after granting it) refuses it.
     */
    public UploadResult upload(Map<String, String> files, String message, String author) {
        return upload(files, message, author, true);
    }

    private UploadResult upload(Map<String, String> files, String message, String author, boolean checkFleet) {
        writerLock.ensureHeld();
        requireMessage(message);
        if (files == null || files.isEmpty()) {
            throw ProblemException.invalid("A rule set needs at least one file");
        }
        LayeredRuleSet layered = LayeringSummary.resolve(files);
        RuleSet draft = layered.ruleSet();
        if (draft.files().isEmpty()) {
            throw ProblemException.invalid("The layered rule set resolves to no file: it removes everything it inherits");
        }
        String hash = RuleSetHash.sha256(draft);
        lock.lock();
        try {
            Optional<RuleSetVersionRow> same = tx.executeRead(s -> versions.findByContentHash(hash));
            if (same.isPresent()) {
                throw ProblemException.conflict("This rule set is identical to version "
                        + PolicyVersion.label(same.get().version()) + " (hash " + hash + ")");
            }
            long number = tx.executeRead(s -> versions.maxVersion()) + 1;
            RuleSet candidate = draft.withVersion(PolicyVersion.label(number));
            ValidationReport report = validator.validate(candidate);
            ValidationSummary validation = ValidationSummary.of(report)
                    .with(checkFleet ? fleetCheck.get().check(candidate, report) : List.of());
            Instant now = clock.instant();
            Long parent = currentVersion().orElse(null);
            RuleSet parentSet = parent == null ? RuleSet.draft(Map.of()) : load(parent);
            RuleSetComparison diff = RuleSetComparison.between(parentSet, candidate);
            if (!validation.valid()) {
                tx.executeWrite(s -> {
                    writerLock.confirm(s.getConnection());
                    return history.append(HistoryEvent.VALIDATION_FAILED, null, hash, author, message, now,
                            diff.added(), diff.removed(), diff.changed(), diff.unifiedDiff(),
                            String.join("\n", validation.errorLines()));
                });
                refused.publishEvent(new PolicyValidationFailed(PolicyValidationFailed.UPLOAD, validation.errorLines().size()));
                List<String> incoherent = validation.messages().stream()
                        .filter(m -> m.isError() && m.stage() == PolicyMessage.Stage.COHERENCE).map(PolicyMessage::text).toList();
                throw new ProblemException(ProblemException.Kind.UNPROCESSABLE, "Rule set rejected", "The rule set did not validate: "
                        + validation.errorLines().size() + " error(s); the active version is unchanged"
                        + (incoherent.isEmpty() ? "" : ". It does not keep what it grants on the live fleet: "
                        + String.join("; ", incoherent)), validation.errorLines());
            }
            PolicyVersion stored = tx.executeWrite(s -> {
                writerLock.confirm(s.getConnection());
                RuleSetVersionRow row = new RuleSetVersionRow(number, hash, author, message, now, parent,
                        RuleSetCodec.encode(candidate));
                versions.save(row);
                history.append(HistoryEvent.UPLOADED, number, hash, author, message, now, diff.added(),
                        diff.removed(), diff.changed(), diff.unifiedDiff(), validation.testSummary());
                return toVersion(row);
            });
            return new UploadResult(stored, validation, LayeringSummary.of(layered));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Activates a stored version after validating it again and checking it on the live fleet;
     * {@code rollback} marks a return to an earlier one. A COHERENCE error refuses an activation
     * but not a rollback (the way back must stay open; its findings are shown in the answer).
     */
    public ActivationResult activate(long version, String author, String message, boolean rollback) {
        return activate(version, author, message, rollback, true);
    }

    private ActivationResult activate(long version, String author, String message, boolean rollback, boolean checkFleet) {
        requireShort(message);
        writerLock.ensureHeld();
        lock.lock();
        try {
            RuleSetVersionRow row = tx.executeRead(s -> versions.findById(version))
                    .orElseThrow(() -> ProblemException.notFound("policy version", PolicyVersion.label(version)));
            Optional<Long> previous = currentVersion();
            if (previous.isPresent() && previous.get() == version) {
                throw ProblemException.conflict(PolicyVersion.label(version) + " is already active");
            }
            if (rollback && (previous.isEmpty() || version > previous.get())) {
                throw ProblemException.conflict("A rollback returns to an earlier version; "
                        + PolicyVersion.label(version) + " is not earlier than the active one. Use activate.");
            }
            String why = message == null || message.isBlank()
                    ? (rollback ? "Rollback to " : "Activate ") + PolicyVersion.label(version) : message;
            RuleSet ruleSet = RuleSetCodec.decode(version, row.files());
            ValidationReport report = validator.validate(ruleSet);
            List<PolicyMessage> fleet = checkFleet && report.valid() ? fleetCheck.get().check(ruleSet, report) : List.of();
            List<PolicyMessage> blocking = rollback ? List.of() : fleet.stream().filter(PolicyMessage::isError).toList();
            RuleSetComparison diff = RuleSetComparison.between(
                    previous.map(this::load).orElse(RuleSet.draft(Map.of())), ruleSet);
            Instant now = clock.instant();
            HistoryEvent event = rollback ? HistoryEvent.ROLLED_BACK : HistoryEvent.ACTIVATED;
            if (!report.valid() || report.policy().isEmpty() || !blocking.isEmpty()) {
                List<String> errors = java.util.stream.Stream.concat(report.errors().stream(), blocking.stream())
                        .map(Object::toString).toList();
                tx.executeWrite(s -> {
                    writerLock.confirm(s.getConnection());
                    return history.append(HistoryEvent.ACTIVATION_FAILED, version, row.contentHash(), author,
                            why, now, diff.added(), diff.removed(), diff.changed(), diff.unifiedDiff(), String.join("\n", errors));
                });
                refused.publishEvent(new PolicyValidationFailed(PolicyValidationFailed.ACTIVATION, errors.size()));
                throw new ProblemException(ProblemException.Kind.UNPROCESSABLE, "Activation refused", PolicyVersion.label(version)
                        + (report.valid() ? " does not keep what it grants on the live fleet: " + String.join("; ",
                        blocking.stream().map(PolicyMessage::text).toList()) : " no longer validates")
                        + "; the active version is unchanged", errors);
            }
            HistoryRecord record = tx.executeWrite(s -> {
                writerLock.confirm(s.getConnection());
                PolicyActiveRow pointer = new PolicyActiveRow(1, version, now, author);
                if (previous.isPresent()) {
                    activeRow.update(pointer);
                } else {
                    activeRow.save(pointer);
                }
                return history.append(event, version, row.contentHash(), author, why, now, diff.added(),
                        diff.removed(), diff.changed(), diff.unifiedDiff(), "previous: "
                                + previous.map(PolicyVersion::label).orElse("none"));
            });
            active.swap(version, report.policy().get());
            return new ActivationResult(toVersion(row), previous.orElse(null), record, fleet);
        } finally {
            lock.unlock();
        }
    }

    public List<PolicyVersion> versions() {
        return tx.executeRead(s -> versions.listWithoutFiles()).stream().map(PolicyLifecycle::toVersion).toList();
    }

    public PolicyVersion version(long version) {
        return toVersion(row(version));
    }

    public RuleSet load(long version) {
        return RuleSetCodec.decode(version, row(version).files());
    }

    public Optional<Long> currentVersion() {
        return tx.executeRead(s -> activeRow.findById(1)).map(PolicyActiveRow::version);
    }

    /** Content hash of the active version, for the directory watcher's "nothing changed" check. */
    String activeContentHash() {
        return currentVersion().map(v -> row(v).contentHash()).orElse("");
    }

    private RuleSetVersionRow row(long version) {
        return tx.executeRead(s -> versions.findById(version))
                .orElseThrow(() -> ProblemException.notFound("policy version", PolicyVersion.label(version)));
    }

    private static void requireMessage(String message) {
        if (message == null || message.isBlank()) {
            throw ProblemException.invalid("A change message is required: say why the policy changes");
        }
        requireShort(message);
    }

    /** A change message is a sentence or a paragraph for the history, not a document. */
    static final int MAX_MESSAGE = 4096;

    private static void requireShort(String message) {
        if (message != null && message.length() > MAX_MESSAGE) {
            throw ProblemException.invalid("message: at most " + MAX_MESSAGE + " characters, got " + message.length());
        }
    }

    private static PolicyVersion toVersion(RuleSetVersionRow row) {
        return new PolicyVersion(row.version(), PolicyVersion.label(row.version()), row.contentHash(), row.author(),
                row.message(), row.createdAt(), row.parentVersion());
    }
}
