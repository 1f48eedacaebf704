package io.gpupool.policy.engine;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.RuleSetLinter;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetLayering;
import io.gpupool.policy.scenario.PolicyTestReport;
import io.gpupool.policy.scenario.ScenarioRunner;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.gpupool.policy.engine.TestRuleSets.changed;
import static io.gpupool.policy.engine.TestRuleSets.header;
import static io.gpupool.policy.engine.TestRuleSets.withTests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule set that shares packages with an earlier build builds only the packages it changed and
 * assembles its rule base from those and the kept ones ({@link BuiltPackages}); it must decide
 * exactly as the same rule set built whole: the same rules in the same load order, the same
 * results on every policy test, the same sandbox and budget, the same messages. Where a package
 * depends on another, or the changed packages are not clean, the rule set is built whole.
 */
class RulePackageAssemblyTest {
    private static final String RECLAMATION = "reclamation/reclamation.drl";

    @Test
    void aCandidateChangingOneRuleBuildsOnlyItsPackageAndDecidesAsAWholeBuild() {
        BuiltPackages kept = new BuiltPackages();
        GeneratedClassReuse reuse = new GeneratedClassReuse();
        PolicyCompiler compiler = new PolicyCompiler(reuse, kept);
        compiler.build(DefaultPolicy.RULE_SET.withVersion("active")).orThrow();
        GeneratedClassReuse.Counts afterActive = reuse.counts();
        RuleSet candidate = changed(DefaultPolicy.RULE_SET, RECLAMATION, "reportAgeSeconds > 600", "reportAgeSeconds > 900");

        CompiledPolicy assembled = compiler.build(candidate).orThrow();
        CompiledPolicy whole = wholeBuild(candidate);

        assertThat(kept.assembledBases()).isEqualTo(1);
        // Only the reclamation package's Java went through the compiler: nothing of the other eight packages was even generated.
        long sources = reuse.counts().compiled() + reuse.counts().reused() - afterActive.compiled() - afterActive.reused();
        assertThat(sources).isPositive().isLessThan(afterActive.compiled() / 4);
        assertSameRuleBase(assembled, freshBuild(candidate));
        // For the shipped rules the order by package is also the one a whole build gives: the live policy's is unchanged.
        assertSameRuleBase(assembled, whole);
        assertSamePolicyTestResults(assembled, whole, DefaultPolicy.RULE_SET.testFiles());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tiered-enterprise", "inference-first", "research-lab-fair-share"})
    void everyPackageOfAnExamplePolicyChangedAloneDecidesAsAWholeBuild(String example) {
        RuleSet policy = RuleSetLayering.resolve(RuleSetFiles.fromDirectory(Path.of("policies-examples", example), example).files())
                .ruleSet().withVersion(example);
        BuiltPackages kept = new BuiltPackages();
        PolicyCompiler compiler = new PolicyCompiler(new GeneratedClassReuse(), kept);
        compiler.build(policy).orThrow();
        Map<String, String> firstFileByPackage = new LinkedHashMap<>();
        BuiltPackages.Packages.of(policy.ruleFiles()).filesByPackage()
                .forEach((pkg, files) -> firstFileByPackage.put(pkg, files.keySet().iterator().next()));
        assertThat(firstFileByPackage).hasSizeGreaterThan(3);

        for (String file : firstFileByPackage.values()) {
            Map<String, String> files = new TreeMap<>(policy.files());
            files.put(file, files.get(file) + "\n// edited\n");
            RuleSet candidate = new RuleSet(example + "-edited", files);
            long before = kept.assembledBases();

            CompiledPolicy assembled = compiler.build(candidate).orThrow();

            assertThat(kept.assembledBases()).as(file).isEqualTo(before + 1);
            assertSameRuleBase(assembled, freshBuild(candidate));
            assertSamePolicyTestResults(assembled, wholeBuild(candidate), policy.testFiles());
        }
    }

    @Test
    void aPackageWhoseClassesNameAnotherPackagesClassIsNeverKept() {
        // The executable model compiles no call into another package's function or query; a declared type
        // is the one thing a package can take from another (and a rule set declaring one is built whole).
        // The check does not rely on that: a class naming another package's class, if only in a field's type, is not kept.
        Map<String, byte[]> classes = Map.of(
                "io/gpupool/rules/flags/Flag", classBytes("io/gpupool/rules/flags/Flag", null),
                "io/gpupool/rules/uses/P1A/LambdaPredicate1", classBytes("io/gpupool/rules/uses/P1A/LambdaPredicate1", "Lio/gpupool/rules/flags/Flag;"),
                "io/gpupool/rules/alone/P2B/LambdaPredicate2", classBytes("io/gpupool/rules/alone/P2B/LambdaPredicate2", "Ljava/lang/String;"));
        List<org.drools.model.Model> models = List.of(model("io.gpupool.rules.flags"), model("io.gpupool.rules.uses"),
                model("io.gpupool.rules.alone"));

        Map<String, BuiltPackages.Built> keepable = BuiltPackages.keepable(
                List.of("io.gpupool.rules.flags", "io.gpupool.rules.uses", "io.gpupool.rules.alone"), classes, models, List.of());

        assertThat(keepable).containsOnlyKeys("io.gpupool.rules.flags", "io.gpupool.rules.alone");
        assertThat(keepable.get("io.gpupool.rules.alone").classNames()).containsExactly("io/gpupool/rules/alone/P2B/LambdaPredicate2");
    }

    @Test
    void aFileRemovedFromAKeptPackageTakesItsRulesWithIt() {
        BuiltPackages kept = new BuiltPackages();
        PolicyCompiler compiler = new PolicyCompiler(new GeneratedClassReuse(), kept);
        Map<String, String> two = Map.of("b/one.drl", header("b") + "rule \"One\" when $r : RequestFact( gpuCount > 100 ) then end\n",
                "b/two.drl", header("b") + "rule \"Two\" when $r : RequestFact( gpuCount > 200 ) then end\n");
        compiler.build(withDefaults(two)).orThrow();
        Map<String, String> onlyTwo = new TreeMap<>(two);
        onlyTwo.remove("b/one.drl");

        CompiledPolicy assembled = compiler.build(withDefaults(onlyTwo)).orThrow();

        assertThat(kept.assembledBases()).isEqualTo(1);
        assertThat(assembled.ruleNames()).contains("Two").doesNotContain("One");
        assertSameRuleBase(assembled, freshBuild(withDefaults(onlyTwo)));
    }

    @Test
    void aPackageNamedInACommentIsNotTakenForTheFilesPackage() {
        BuiltPackages kept = new BuiltPackages();
        PolicyCompiler compiler = new PolicyCompiler(new GeneratedClassReuse(), kept);
        String hidden = "/*\npackage io.gpupool.rules.notes;\n*/\n" + header("b")
                + "rule \"Hidden\" when $r : RequestFact( gpuCount > 100 ) then end\n";
        String plain = header("b") + "rule \"Plain\" when $r : RequestFact( gpuCount > 200 ) then end\n";
        compiler.build(withDefaults(Map.of("b/hidden.drl", hidden, "b/plain.drl", plain))).orThrow();

        // The hidden file removed, and another package changed: package b must not come back with its rule.
        Map<String, String> files = new TreeMap<>(withDefaults(Map.of("b/plain.drl", plain)).files());
        files.put(RECLAMATION, files.get(RECLAMATION) + "\n// edited\n");
        CompiledPolicy after = compiler.build(new RuleSet("after", files)).orThrow();

        assertThat(after.ruleNames()).contains("Plain").doesNotContain("Hidden");
        assertThat(BuiltPackages.packageOf(hidden)).contains("io.gpupool.rules.b");
    }

    @Test
    void onlyAPackageStatementReadAsTheGrammarReadsItIsTrusted() {
        assertThat(BuiltPackages.packageOf("// a comment\n  package io.gpupool.rules.quota;\nimport x;")).contains("io.gpupool.rules.quota");
        assertThat(BuiltPackages.packageOf("package io.gpupool.rules.quota\nrule \"x\" when then end")).contains("io.gpupool.rules.quota");
        assertThat(BuiltPackages.packageOf("/* package a.b; */ package c.d;")).contains("c.d");
        assertThat(BuiltPackages.packageOf("package io.gpupool.rules.quota$x;")).isEmpty();
        assertThat(BuiltPackages.packageOf("package io.gpupool.rules.quot\u00e9;")).isEmpty();
        assertThat(BuiltPackages.packageOf("import java.util.List;\npackage a.b;")).isEmpty();
        assertThat(BuiltPackages.packageOf("/* never closed package a.b;")).isEmpty();
        assertThat(BuiltPackages.packageOf("packagea.b;")).isEmpty();
    }

    @Test
    void aRuleSetInWhichAPackageCannotBeReadPlainlyIsBuiltWhole() {
        BuiltPackages kept = new BuiltPackages();
        PolicyCompiler compiler = new PolicyCompiler(new GeneratedClassReuse(), kept);
        String odd = "package io.gpupool.rules.quota$x;\nimport io.gpupool.policy.fact.RequestFact;\n"
                + "rule \"Odd\" when $r : RequestFact( gpuCount > 100 ) then end\n";
        compiler.build(DefaultPolicy.RULE_SET).orThrow();

        Compilation withOdd = compiler.build(withDefaults(Map.of("quota/odd.drl", odd)));

        assertThat(kept.assembledBases()).isZero();
        assertThat(withOdd.messages()).isEqualTo(new PolicyCompiler(new GeneratedClassReuse(0)).build(withDefaults(Map.of("quota/odd.drl", odd))).messages());
    }

    @Test
    void keysOfDifferentFilesNeverMeetWhateverTheTextsHold() {
        String a = "rule \"A\" when then end\n";
        String b = "rule \"B\" when then end\n";
        Map<String, String> twoFiles = new LinkedHashMap<>();
        twoFiles.put("p/one.drl", a);
        twoFiles.put("p/two.drl", b);
        Map<String, String> oneFileHoldingBoth = Map.of("p/one.drl", a + "\0p/two.drl\0" + b);

        assertThat(BuiltPackages.key("p", oneFileHoldingBoth)).isNotEqualTo(BuiltPackages.key("p", twoFiles));
        assertThat(BuiltPackages.key("p", twoFiles)).isEqualTo(BuiltPackages.key("p", new LinkedHashMap<>(twoFiles)));
    }

    @Test
    void aRuleSetWithADeclaredTypeIsBuiltWhole() {
        BuiltPackages kept = new BuiltPackages();
        PolicyCompiler compiler = new PolicyCompiler(new GeneratedClassReuse(), kept);
        String declared = header("flags") + """
                declare Flag
                    name : String
                end
                rule "Flag every request"
                when
                    $r : RequestFact( )
                then
                    insert(new Flag($r.requestId()));
                end
                """;
        compiler.build(withDefaults(Map.of("flags/flags.drl", declared))).orThrow();
        compiler.build(withDefaults(Map.of("flags/flags.drl", declared + "\n// edited\n"))).orThrow();
        // not at the start of a line either
        compiler.build(withDefaults(Map.of("flags/flags.drl", declared.replace("\ndeclare Flag", " declare Flag")))).orThrow();

        assertThat(kept.assembledBases()).isZero();
    }

    @Test
    void aChangedPackageWithAnErrorIsReportedAsTheWholeBuildReportsIt() {
        PolicyCompiler compiler = keepingCompiler();
        RuleSet broken = changed(DefaultPolicy.RULE_SET, RECLAMATION, "reportAgeSeconds > 600", "reportAgeSecondz > 600");

        Compilation assembled = compiler.build(broken);
        Compilation whole = new PolicyCompiler(new GeneratedClassReuse(0)).build(broken);

        assertThat(assembled.succeeded()).isFalse();
        assertThat(assembled.messages()).isNotEmpty().isEqualTo(whole.messages());
        assertThat(assembled.messages()).anyMatch(m -> RECLAMATION.equals(m.file()) && m.isError());
    }

    @Test
    void aChangedPackageTheSandboxRefusesIsRefusedAsTheWholeBuildRefusesIt() {
        PolicyCompiler compiler = keepingCompiler();
        RuleSet hostile = changed(DefaultPolicy.RULE_SET, RECLAMATION, "reportAgeSeconds > 600",
                "reportAgeSeconds > 600, eval( System.currentTimeMillis() > 0 )");

        Compilation assembled = compiler.build(hostile);
        Compilation whole = new PolicyCompiler(new GeneratedClassReuse(0)).build(hostile);

        assertThat(assembled.succeeded()).isFalse();
        assertThat(assembled.messages()).isNotEmpty().isEqualTo(whole.messages());
        assertThat(assembled.messages()).anyMatch(m -> m.stage() == Stage.SANDBOX && m.text().contains("java.lang.System"));
    }

    @Test
    void aChangedPackageWhoseConstantConditionRunsAwayIsStoppedInItsOwnBuildWithTheWholeBuildsMessage() {
        GeneratedClassReuse reuse = new GeneratedClassReuse();
        PolicyCompiler compiler = new PolicyCompiler(reuse, new BuiltPackages());
        compiler.build(DefaultPolicy.RULE_SET).orThrow();
        GeneratedClassReuse.Counts afterDefaults = reuse.counts();
        String deep = header("deep") + """
                function int deeper(int n) { return deeper(n + 1) + 1; }
                rule "Deep constant" when eval( deeper(0) > 0 ) then end
                """;
        RuleSet candidate = withDefaults(Map.of("deep/deep.drl", deep));

        Compilation assembled = compiler.build(candidate);

        // Only the new package went through the compiler: no whole build ran after it stopped.
        long sources = reuse.counts().compiled() + reuse.counts().reused() - afterDefaults.compiled() - afterDefaults.reused();
        assertThat(sources).isPositive().isLessThan(afterDefaults.compiled() / 4);
        Compilation whole = new PolicyCompiler(new GeneratedClassReuse(0)).build(candidate);
        assertThat(assembled.succeeded()).isFalse();
        assertThat(assembled.messages()).isNotEmpty().isEqualTo(whole.messages());
        assertThat(assembled.messages()).anyMatch(m -> m.stage() == Stage.EVALUATION && m.text().contains("function deeper recursed too deeply"));
    }

    @Test
    void aSpinningRuleInAKeptPackageIsStillStoppedAndNamedAfterAnotherPackageChanged() {
        BuiltPackages kept = new BuiltPackages();
        PolicyValidator validator = new PolicyValidator(new RuleSetLinter(), new PolicyCompiler(new GeneratedClassReuse(), kept),
                new ScenarioRunner(new PolicyEngine(new EvaluationLimits(10_000, 20, Duration.ofMillis(400)))));
        String spin = header("spin") + "rule \"Spins\" when eval( true ) then long i = 0; while (i >= 0) { i++;"
                + " if (i == Long.MAX_VALUE) { i = 0; } } end\n";
        String other = header("other") + "rule \"Another\" when $r : RequestFact( gpuCount > 100 ) then end\n";
        validator.validate(RuleSet.draft(withTests(Map.of("spin/spin.drl", spin, "other/other.drl", other))));

        ValidationReport afterChange = validator.validate(RuleSet.draft(withTests(Map.of("spin/spin.drl", spin,
                "other/other.drl", other.replace("> 100", "> 200")))));

        // and the spinning package itself changed: built alone in a module of its own, still instrumented
        ValidationReport spinChanged = validator.validate(RuleSet.draft(withTests(Map.of("spin/spin.drl", spin + "// edited\n",
                "other/other.drl", other.replace("> 100", "> 200")))));

        assertThat(kept.assembledBases()).isEqualTo(2);
        for (ValidationReport report : List.of(afterChange, spinChanged)) {
            assertThat(report.valid()).isFalse();
            assertThat(report.errors()).anyMatch(m -> m.stage() == Stage.EVALUATION && m.text().contains("Spins"));
        }
    }

    @Test
    void aKeptPackageThatLooksIntoRequestIdsStillMakesAdmissionsRequestByRequest() {
        BuiltPackages kept = new BuiltPackages();
        PolicyCompiler compiler = new PolicyCompiler(new GeneratedClassReuse(), kept);
        String byId = header("admission") + """
                rule "Batch requests are rejected"
                when
                    $r : RequestFact( requestId.startsWith("batch-") )
                then
                    decisions.reject($r, "BATCH", "No batch here");
                end
                """;
        String other = header("other") + "rule \"Another\" when $r : RequestFact( gpuCount > 100 ) then end\n";
        compiler.build(new RuleSet("v1", Map.of("admission/by-id.drl", byId, "other/other.drl", other))).orThrow();
        RuleSet candidate = new RuleSet("v2", Map.of("admission/by-id.drl", byId, "other/other.drl", other.replace("> 100", "> 200")));

        Compilation assembled = compiler.build(candidate);
        Compilation whole = new PolicyCompiler(new GeneratedClassReuse(0)).build(candidate);

        assertThat(kept.assembledBases()).isEqualTo(1);
        assertThat(assembled.orThrow().requestIdsAsNames()).isFalse();
        assertThat(assembled.messages()).isEqualTo(whole.messages());
        assertThat(assembled.messages()).singleElement().satisfies(m -> assertThat(m.text()).contains("Batch requests are rejected"));
    }

    private static byte[] classBytes(String name, String fieldType) {
        org.objectweb.asm.ClassWriter writer = new org.objectweb.asm.ClassWriter(0);
        writer.visit(org.objectweb.asm.Opcodes.V17, org.objectweb.asm.Opcodes.ACC_PUBLIC, name, null, "java/lang/Object", null);
        if (fieldType != null) {
            writer.visitField(org.objectweb.asm.Opcodes.ACC_PUBLIC, "flag", fieldType, null, null).visitEnd();
        }
        writer.visitEnd();
        return writer.toByteArray();
    }

    private static org.drools.model.Model model(String pkg) {
        return new org.drools.model.Model() {
            @Override
            public String getName() {
                return pkg + ".Rules";
            }

            @Override
            public String getPackageName() {
                return pkg;
            }

            @Override
            public List<org.drools.model.Global> getGlobals() {
                return List.of();
            }

            @Override
            public List<org.drools.model.Rule> getRules() {
                return List.of();
            }

            @Override
            public List<org.drools.model.Query> getQueries() {
                return List.of();
            }

            @Override
            public List<org.drools.model.TypeMetaData> getTypeMetaDatas() {
                return List.of();
            }

            @Override
            public List<org.drools.model.EntryPoint> getEntryPoints() {
                return List.of();
            }
        };
    }

    private static void assertSameRuleBase(CompiledPolicy assembled, CompiledPolicy reference) {
        assertThat(assembled.ruleNames()).isEqualTo(reference.ruleNames());
        assertThat(loadOrder(assembled)).isEqualTo(loadOrder(reference));
        // The network itself built in the same order: each rule's terminal nodes have the same ids.
        assertThat(terminalNodeIds(assembled)).isEqualTo(terminalNodeIds(reference));
        assertThat(assembled.requestIdsAsNames()).isEqualTo(reference.requestIdsAsNames());
        assertThat(assembled.matchedDecisionTypes()).isEqualTo(reference.matchedDecisionTypes());
        // The rule classes verified for the assembled base are the reference's (a whole build adds its project class).
        assertThat(reference.generatedClasses()).containsAll(assembled.generatedClasses());
        assertThat(assembled.generatedClasses()).anyMatch(c -> c.contains("/Lambda"));
    }

    private static void assertSamePolicyTestResults(CompiledPolicy assembled, CompiledPolicy whole, Map<String, String> tests) {
        PolicyTestReport onAssembled = DefaultPolicy.RUNNER.runAll(assembled, tests);
        PolicyTestReport onWhole = DefaultPolicy.RUNNER.runAll(whole, tests);
        assertThat(onAssembled.results()).isNotEmpty().isEqualTo(onWhole.results());
    }

    /** Each package's rules in the order the base loaded them, which breaks ties between activations of equal salience. */
    private static List<String> loadOrder(CompiledPolicy policy) {
        List<RuleImpl> rules = new ArrayList<>();
        policy.kieBase().getKiePackages().forEach(p -> p.getRules().forEach(r -> rules.add((RuleImpl) r)));
        rules.sort(Comparator.comparing(RuleImpl::getPackageName).thenComparingInt(RuleImpl::getLoadOrder));
        return rules.stream().map(r -> r.getPackageName() + ":" + r.getLoadOrder() + ":" + r.getName()).toList();
    }

    private static Map<String, List<Integer>> terminalNodeIds(CompiledPolicy policy) {
        Map<String, List<Integer>> ids = new TreeMap<>();
        ((org.drools.core.impl.InternalRuleBase) policy.kieBase()).getReteooBuilder().getTerminalNodes()
                .forEach((rule, nodes) -> ids.put(rule, java.util.Arrays.stream(nodes).map(n -> n.getId()).toList()));
        assertThat(ids).isNotEmpty();
        return ids;
    }

    private static CompiledPolicy wholeBuild(RuleSet ruleSet) {
        return new PolicyCompiler(new GeneratedClassReuse(0)).build(ruleSet).orThrow();
    }

    /** The rule set built by package with nothing kept before: the rule base the assembled one must equal. */
    private static CompiledPolicy freshBuild(RuleSet ruleSet) {
        BuiltPackages none = new BuiltPackages();
        CompiledPolicy fresh = new PolicyCompiler(new GeneratedClassReuse(0), none).build(ruleSet).orThrow();
        assertThat(none.assembledBases()).isZero();
        return fresh;
    }

    /** A compiler that has built the default rule set (whole) and kept its packages. */
    private static PolicyCompiler keepingCompiler() {
        PolicyCompiler compiler = new PolicyCompiler(new GeneratedClassReuse(), new BuiltPackages());
        compiler.build(DefaultPolicy.RULE_SET).orThrow();
        return compiler;
    }

    private static RuleSet withDefaults(Map<String, String> extra) {
        Map<String, String> files = new TreeMap<>(DefaultPolicy.RULE_SET.files());
        files.putAll(extra);
        return new RuleSet("with-extra", files);
    }
}
