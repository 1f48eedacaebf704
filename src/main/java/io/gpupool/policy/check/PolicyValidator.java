package io.gpupool.policy.check;

import io.gpupool.policy.engine.Compilation;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.scenario.PolicyTestReport;
import io.gpupool.policy.scenario.ScenarioResult;
import io.gpupool.policy.scenario.ScenarioRunner;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The gate an uploaded rule set passes before it can be activated: lint, compile, then run its
 * own policy tests through the bounded engine (a rule set that loops fails here, not in
 * production). The pools and requests of the default set's tests are evaluated too, without their
 * expectations, so a rule set that ships few tests is still exercised on a varied fleet. Every
 * message of every stage is returned, not just the first.
 */
public final class PolicyValidator {
    private final RuleSetLinter linter;
    private final PolicyCompiler compiler;
    private final ScenarioRunner runner;
    private static volatile Map<String, String> shippedFixtures;
    private static final int REMEMBERED_PASSES = 12;
    /*
     * Reports of rule sets that passed, by their files' content and the evaluation limits: the same
     * files pass the same way (scenarios carry their own clock), and a service validates the same
     * content again and again: on every start on an empty database, and for every dry-run of an
     * unchanged candidate. A report with any error is never remembered: an evaluation stopped by a
     * budget on a busy machine must be tried again, not repeated from memory.
     */
    private static final Map<String, ValidationReport> PASSED = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ValidationReport> eldest) {
            return size() > REMEMBERED_PASSES;
        }
    };

    public PolicyValidator(PolicyEngine engine) {
        this(new RuleSetLinter(), new PolicyCompiler(), new ScenarioRunner(engine));
    }

    public PolicyValidator(RuleSetLinter linter, PolicyCompiler compiler, ScenarioRunner runner) {
        this.linter = linter;
        this.compiler = compiler;
        this.runner = runner;
    }

    public ValidationReport validate(RuleSet ruleSet) {
        String key = passKey(ruleSet);
        ValidationReport passed;
        synchronized (PASSED) {
            passed = PASSED.get(key);
        }
        if (passed != null) {
            return new ValidationReport(passed.messages(), passed.policy().map(p -> p.withRuleSet(ruleSet)), passed.tests());
        }
        ValidationReport fresh = validateAnew(ruleSet);
        if (fresh.valid() && fresh.policy().isPresent()) {
            synchronized (PASSED) {
                PASSED.put(key, fresh);
            }
        }
        return fresh;
    }

    /** Whether {@link #validate} would answer {@code ruleSet} from a remembered pass, without compiling it. */
    public boolean remembers(RuleSet ruleSet) {
        String key = passKey(ruleSet);
        synchronized (PASSED) {
            return PASSED.containsKey(key);
        }
    }

    /** The set's content hash (the one versions are stored under) and the limits its tests ran under. */
    private String passKey(RuleSet ruleSet) {
        return runner.engine().limits() + "|" + io.gpupool.policy.ruleset.RuleSetHash.sha256(ruleSet);
    }

    private ValidationReport validateAnew(RuleSet ruleSet) {
        List<PolicyMessage> messages = new ArrayList<>();
        if (ruleSet.ruleFiles().isEmpty()) {
            messages.add(PolicyMessage.error(Stage.LINT, null, 0, 0, "The rule set has no .drl file"));
        }
        List<PolicyMessage> lint = linter.lint(ruleSet);
        messages.addAll(lint);
        Compilation compilation = compiler.compile(ruleSet);
        messages.addAll(compilation.messages());
        if (compilation.policy().isEmpty()) {
            return new ValidationReport(messages, Optional.empty(), Optional.empty());
        }
        if (lint.stream().anyMatch(PolicyMessage::isError)) {
            // Never run code the linter rejected, not even in a test.
            messages.add(new PolicyMessage(Stage.TEST, Severity.INFO, null, 0, 0,
                    "Policy tests not run: fix the lint errors first"));
            return new ValidationReport(messages, Optional.empty(), Optional.empty());
        }
        if (ruleSet.testFiles().isEmpty()) {
            messages.add(new PolicyMessage(Stage.TEST, Severity.WARNING, null, 0, 0,
                    "The rule set has no policy tests (tests/*.yaml)"));
        }
        PolicyTestReport tests = runner.runAll(compilation.policy().get(), ruleSet.testFiles());
        for (ScenarioResult r : tests.results()) {
            r.evaluationErrors().forEach(e -> messages.add(PolicyMessage.error(Stage.EVALUATION, r.file(), 0, 0, e)));
            r.failures().stream().filter(f -> !r.evaluationErrors().contains(f)).forEach(f ->
                    messages.add(PolicyMessage.error(Stage.TEST, r.file(), 0, 0, r.name() + ": " + f)));
        }
        if (tests.results().stream().allMatch(r -> r.evaluationErrors().isEmpty())) {
            smokeOnShippedFixtures(compilation.policy().get(), messages);
        } else {
            // Already refused; the shipped fixtures would only spend the same budget once more.
            messages.add(new PolicyMessage(Stage.EVALUATION, Severity.INFO, null, 0, 0,
                    "Shipped fixtures not run: the rule set's own tests stopped its evaluation"));
        }
        if (!tests.coverage().neverFired().isEmpty()) {
            messages.add(new PolicyMessage(Stage.TEST, Severity.WARNING, null, 0, 0,
                    "Rules no policy test fires: " + tests.coverage().neverFired()));
        }
        return new ValidationReport(messages, compilation.policy(), Optional.of(tests));
    }

    private void smokeOnShippedFixtures(CompiledPolicy policy, List<PolicyMessage> messages) {
        Map<String, String> fixtures = shippedFixtures;
        if (fixtures == null) {
            fixtures = RuleSetFiles.defaultRuleSet().testFiles();
            shippedFixtures = fixtures;
        }
        // The first fixture that fails is enough to refuse the rule set: a runaway rule would otherwise
        // spend its whole evaluation budget again on every fixture before the admin gets an answer.
        for (Map.Entry<String, String> fixture : new java.util.TreeMap<>(fixtures).entrySet()) {
            List<String> errors = runner.smoke(policy, fixture.getValue());
            errors.forEach(error -> messages.add(PolicyMessage.error(Stage.EVALUATION, "(shipped fixture) " + fixture.getKey(),
                    0, 0, error)));
            if (!errors.isEmpty()) {
                return;
            }
        }
    }
}
