package io.gpupool.policy.scenario;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs policy tests through the same {@link PolicyEngine} entry points enforcement uses: an
 * admission scenario calls {@code admit} per request, a sweep scenario calls {@code sweep} once.
 * A scenario that cannot be parsed or built fails with the reason instead of aborting the run.
 */
public final class ScenarioRunner {
    private final PolicyEngine engine;
    private final ObjectMapper yaml;
    private final DecisionMatcher matcher;

    /** The engine the scenarios are evaluated with. */
    public PolicyEngine engine() {
        return engine;
    }

    public ScenarioRunner(PolicyEngine engine) {
        this.engine = engine;
        this.yaml = new ObjectMapper(new YAMLFactory()).registerModule(new JavaTimeModule())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        this.matcher = new DecisionMatcher(json);
    }

    public ScenarioSpec parse(String text) throws java.io.IOException {
        return yaml.readValue(text, ScenarioSpec.class);
    }

    /** Runs every test file (path → YAML) of a rule set and measures rule coverage. */
    public PolicyTestReport runAll(CompiledPolicy policy, Map<String, String> testFiles) {
        List<ScenarioResult> results = new ArrayList<>();
        Set<String> fired = new HashSet<>();
        String stoppedIn = null;
        for (Map.Entry<String, String> test : new java.util.TreeMap<>(testFiles).entrySet()) {
            if (stoppedIn != null) {
                // A rule set whose evaluation was stopped is refused anyway; running the rest would spend the
                // whole budget again on each test before the admin gets an answer.
                results.add(new ScenarioResult(test.getKey(), test.getKey(), false,
                        List.of("not run: the evaluation of " + stoppedIn + " was stopped"), List.of(), Set.of()));
                continue;
            }
            ScenarioResult result = run(policy, test.getKey(), test.getValue());
            results.add(result);
            fired.addAll(result.firedRules());
            if (!result.evaluationErrors().isEmpty()) {
                stoppedIn = test.getKey();
            }
        }
        Set<String> never = new HashSet<>(policy.ruleNames());
        never.removeAll(fired);
        fired.retainAll(policy.ruleNames());
        return new PolicyTestReport(results, new RuleCoverage(fired, never));
    }

    /**
     * Evaluates the scenario's pool and requests and ignores its expectations: a smoke run that
     * only asks "does this policy evaluate cleanly here?". Returns the evaluation errors.
     */
    public List<String> smoke(CompiledPolicy policy, String text) {
        try {
            ScenarioSpec spec = parse(text);
            return new ArrayList<>(run(policy, "smoke", "smoke", new ScenarioSpec(spec.name(), spec.mode(), spec.now(),
                    spec.given(), spec.requests(), null, null)).evaluationErrors());
        } catch (java.io.IOException | RuntimeException e) {
            return List.of();
        }
    }

    public ScenarioResult run(CompiledPolicy policy, String file, String text) {
        ScenarioSpec spec;
        try {
            spec = parse(text);
        } catch (java.io.IOException | RuntimeException e) {
            return new ScenarioResult(file, file, false, List.of("cannot read scenario: " + firstLine(e)), List.of(), Set.of());
        }
        String name = spec.name() != null ? spec.name() : file;
        try {
            return run(policy, file, name, spec);
        } catch (RuntimeException e) {
            return new ScenarioResult(file, name, false, List.of("scenario error: " + firstLine(e)), List.of(), Set.of());
        }
    }

    private ScenarioResult run(CompiledPolicy policy, String file, String name, ScenarioSpec spec) {
        SnapshotFacts facts = ScenarioFixture.facts(spec);
        List<RequestFact> requests = ScenarioFixture.requests(spec);
        List<Evaluation> evaluations = new ArrayList<>();
        if (spec.isAdmission()) {
            for (RequestFact request : requests) {
                Evaluation evaluation = engine.admit(policy, facts, request);
                evaluations.add(evaluation);
                if (!evaluation.errors().isEmpty()) {
                    // A rule set whose evaluation failed is refused anyway; evaluating the next requests
                    // would spend a runaway rule's whole budget again for each of them.
                    break;
                }
            }
        } else {
            evaluations.add(engine.sweep(policy, facts, requests));
        }
        List<Decision> decisions = new ArrayList<>();
        Set<String> fired = new HashSet<>();
        List<String> errors = new ArrayList<>();
        for (Evaluation e : evaluations) {
            decisions.addAll(e.decisions());
            fired.addAll(e.firedRules().keySet());
            e.errors().stream().map(PolicyMessage::text).forEach(errors::add);
        }
        List<String> failures = new ArrayList<>(errors);
        for (Map<String, Object> expected : nullToEmpty(spec.expect())) {
            String failure = matcher.expectPresent(expected, decisions);
            if (failure != null) {
                failures.add(failure);
            }
        }
        for (Map<String, Object> forbidden : nullToEmpty(spec.absent())) {
            String failure = matcher.expectAbsent(forbidden, decisions);
            if (failure != null) {
                failures.add(failure);
            }
        }
        return new ScenarioResult(file, name, failures.isEmpty(), failures, errors, fired);
    }

    private static <T> List<T> nullToEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static String firstLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int cut = m.indexOf('\n');
        return cut < 0 ? m : m.substring(0, cut);
    }
}
