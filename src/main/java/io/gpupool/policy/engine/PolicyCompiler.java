package io.gpupool.policy.engine;

import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.ProfileLabel;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.sandbox.RuleBudget;
import io.gpupool.policy.sandbox.RuleOrigins;
import io.gpupool.policy.sandbox.RuleSandbox;
import org.drools.compiler.kie.builder.impl.AbstractKieModule;
import org.drools.model.Model;
import org.drools.modelcompiler.KieBaseBuilder;
import org.kie.api.KieBase;
import org.kie.api.KieBaseConfiguration;
import org.kie.api.builder.model.KieBaseModel;
import org.kie.api.KieServices;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Compiles a rule set into a {@link CompiledPolicy}: package by package where it can
 * ({@link BuiltPackages}), else whole, each module built and secured by {@link RuleModules}. Builds
 * run one at a time: every module is built under one release id, and the Kie repository holds a
 * module by its id from the build to the container, which two builds at once would share. Each
 * module is dropped from the Kie repository once its models or base exist, so repeated uploads do
 * not accumulate.
 */
public final class PolicyCompiler {
    private static final List<Class<?>> DECISION_TYPES = List.of(TierAssignment.class, ProfileLabel.class,
            AdmissionDecision.class, PriorityAssignment.class, QuotaVerdict.class, PreemptionCandidate.class,
            ReclaimOrder.class, io.gpupool.policy.decision.ApprovalRequirement.class);
    private static final Pattern DECISIONS_GLOBAL = Pattern.compile("(?m)^\\s*global\\s+[\\w.]*Decisions\\s+decisions\\b");
    private static final int POOLED_SESSIONS = 4;
    private static final String DEFAULT_KIE_BASE = "defaultKieBase";
    /** Every module is built under one release id ({@link RuleModules}), so builds run one at a time. */
    private static final Object ONE_BUILD_AT_A_TIME = new Object();
    /** The generated Java compiled by the builds before, shared by every compiler of the process. */
    private static final GeneratedClassReuse GENERATED_CLASSES = new GeneratedClassReuse();
    private final RuleModules modules;
    /** The packages built before, shared by every compiler of the process. */
    private static final BuiltPackages BUILT_PACKAGES = new BuiltPackages();
    private final BuiltPackages builtPackages;

    public PolicyCompiler() {
        this(GENERATED_CLASSES, BUILT_PACKAGES);
    }

    /** A compiler keeping generated classes in {@code generatedClasses} and building every rule set whole (tests). */
    PolicyCompiler(GeneratedClassReuse generatedClasses) {
        this(generatedClasses, new BuiltPackages(0));
    }

    /** A compiler keeping generated classes in {@code generatedClasses} and built packages in {@code builtPackages} (tests). */
    PolicyCompiler(GeneratedClassReuse generatedClasses, BuiltPackages builtPackages) {
        this.modules = new RuleModules(generatedClasses);
        this.builtPackages = builtPackages;
    }
    private static final RuleBudget.Limits BUILD_BUDGET = new RuleBudget.Limits(java.time.Duration.ofSeconds(10),
            EvaluationLimits.DEFAULT_BASE_BYTES);
    private static final int CACHED_COMPILATIONS = 12;
    private static final Map<String, Compilation> CACHE = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Compilation> eldest) {
            return size() > CACHED_COMPILATIONS;
        }
    };

    /**
     * Compiles {@code ruleSet}, or takes the compilation of the same rule text from a small cache:
     * the executable model spends about a second generating and compiling Java for the default set,
     * and a service compiles the same content again and again (start, activation, rollback, every
     * validation of a candidate that only changed its tests). The compiled base is immutable and
     * thread-safe, so versions with the same rules share it under their own labels.
     */
    public Compilation compile(RuleSet ruleSet) {
        String key = contentKey(ruleSet);
        Compilation cached;
        synchronized (CACHE) {
            cached = CACHE.get(key);
        }
        if (cached != null) {
            return new Compilation(cached.policy().map(p -> p.withRuleSet(ruleSet)), cached.messages());
        }
        Compilation fresh = build(ruleSet);
        synchronized (CACHE) {
            CACHE.put(key, fresh);
        }
        return fresh;
    }

    private static String contentKey(RuleSet ruleSet) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            new java.util.TreeMap<>(ruleSet.ruleFiles()).forEach((path, text) -> {
                BuiltPackages.field(sha, path);
                BuiltPackages.field(sha, text);
            });
            return java.util.HexFormat.of().formatHex(sha.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Builds {@code ruleSet} whatever the cache of compilations holds (tests). */
    Compilation build(RuleSet ruleSet) {
        synchronized (ONE_BUILD_AT_A_TIME) {
            return buildAlone(ruleSet);
        }
    }

    /**
     * Builds {@code ruleSet} package by package, each package not kept from an earlier build in a
     * module of its own, and assembles the rule base from every package's models ({@link BuiltPackages}).
     * Each package is built alone even when nothing is kept: the order a package's rules are loaded in
     * (it breaks ties between activations of equal salience) then depends on that package's files
     * alone, so a rule set's rule base is the same whichever of its packages were kept. In one module
     * with other packages' files it would depend on them too (Drools walks a module's files in hash
     * order). The whole build runs and reports where a rule set cannot be assembled (a {@code declare},
     * a file whose package is not read plainly) and whenever a package built alone is not clean: an
     * error, a warning, a sandbox refusal, or classes that name another package's.
     */
    private Compilation buildAlone(RuleSet ruleSet) {
        BuiltPackages.Packages packages = BuiltPackages.Packages.of(ruleSet.ruleFiles());
        if (packages.assemblable() && builtPackages.keeps()) {
            Map<String, BuiltPackages.Built> kept = new LinkedHashMap<>();
            Map<String, Map<String, String>> changed = new LinkedHashMap<>();
            packages.filesByPackage().forEach((pkg, files) -> builtPackages.kept(packages.keyByPackage().get(pkg))
                    .ifPresentOrElse(built -> kept.put(pkg, built), () -> changed.put(pkg, files)));
            Optional<Compilation> assembled = buildByPackage(ruleSet, packages, kept, changed);
            if (assembled.isPresent()) {
                if (!kept.isEmpty()) {
                    builtPackages.countAssembled();
                }
                return assembled.get();
            }
        }
        return buildWhole(ruleSet);
    }

    private Compilation buildWhole(RuleSet ruleSet) {
        RuleModules.Module module;
        try {
            module = modules.build(ruleSet.ruleFiles());
        } catch (RuntimeException e) {
            // The executable model throws for what it cannot translate (e.g. accumulate code it would hand to MVEL).
            return new Compilation(Optional.empty(), List.of(PolicyMessage.error(Stage.COMPILE, null, 0, 0,
                    "The rule set cannot be compiled: " + e.getMessage()
                            + (String.valueOf(e.getMessage()).contains("accumulate") ? " (use init/action/reverse/result"
                            + " or a built-in accumulate function)" : ""))));
        }
        try (module) {
            List<PolicyMessage> messages = new ArrayList<>(module.messages());
            if (messages.stream().anyMatch(PolicyMessage::isError)) {
                return new Compilation(Optional.empty(), RuleSources.of(ruleSet).locate(messages));
            }
            RuleSandbox.Secured secured = modules.secure(module);
            if (!secured.safe()) {
                messages.addAll(RuleSources.of(ruleSet).refusals(secured));
                return new Compilation(Optional.empty(), messages);
            }
            // The verified classes (instrumented or not: the budget's checks touch no request id).
            List<RequestIdUse.Finding> idUses = RequestIdUse.contentUses(module.classes());
            if (!idUses.isEmpty()) {
                messages.add(idsLookedInto(idUses.get(0), secured.origins()));
            }
            KieBase base;
            // Building the base runs the rule-building code, which evaluates constant conditions (an
            // eval or a from without variables): verified code, but under a budget like any evaluation.
            try (RuleBudget.Scope budget = RuleBudget.open(BUILD_BUDGET)) {
                base = module.services().newKieContainer(module.releaseId()).getKieBase();
            } catch (RuntimeException | RuleBudget.Exceeded | StackOverflowError e) {
                messages.add(PolicyMessage.error(Stage.EVALUATION, null, 0, 0, "Building the rule base stopped: "
                        + PolicyEngine.stopReason(secured.origins(), secured.classNames(), e)
                        .orElseGet(() -> "a constant condition failed: " + e)));
                return new Compilation(Optional.empty(), messages);
            }
            return new Compilation(Optional.of(new CompiledPolicy(ruleSet, base, base.newKieSessionsPool(POOLED_SESSIONS), ruleNames(base),
                    matchedDecisionTypes(ruleSet), declaresDecisionsGlobal(ruleSet), secured.origins(),
                    secured.classNames(), idUses.isEmpty())), messages);
        }
    }

    /**
     * The rule set built from its {@code kept} packages and the {@code changed} ones, each built here
     * in a module of its own; empty when a changed package is not clean or the assembly fails, for
     * the whole build to decide and report.
     */
    private Optional<Compilation> buildByPackage(RuleSet ruleSet, BuiltPackages.Packages packages,
                                                 Map<String, BuiltPackages.Built> kept, Map<String, Map<String, String>> changed) {
        List<BuiltAlone> builtAlone = new ArrayList<>();
        for (Map.Entry<String, Map<String, String>> pkg : changed.entrySet()) {
            Optional<BuiltAlone> clean = buildAlone(pkg.getKey(), pkg.getValue());
            if (clean.isEmpty()) {
                return Optional.empty();
            }
            builtAlone.add(clean.get());
        }
        Map<String, BuiltPackages.Built> parts = new HashMap<>(kept);
        KieBase base;
        // One budget for every making of models: the changed packages' (their constant conditions run here
        // first), then the kept ones' again for the base (theirs ran before, in their own build).
        try (RuleBudget.Scope budget = RuleBudget.open(BUILD_BUDGET)) {
            Map<String, Collection<Model>> made = new HashMap<>();
            for (BuiltAlone alone : builtAlone) {
                Collection<Model> models = alone.module().models();
                Map<String, BuiltPackages.Built> built = BuiltPackages.keepable(List.of(alone.pkg()), alone.classes(), models,
                        alone.idUses());
                if (!built.containsKey(alone.pkg())) {
                    return Optional.empty(); // not what its text was read as, or it uses another package's classes
                }
                builtPackages.keep(packages.keyByPackage().get(alone.pkg()), built.get(alone.pkg()));
                parts.putAll(built);
                made.put(alone.pkg(), models);
            }
            List<Model> models = new ArrayList<>();
            for (String pkg : packages.filesByPackage().keySet()) {
                models.addAll(made.containsKey(pkg) ? made.get(pkg) : parts.get(pkg).newModels());
            }
            KieBaseConfiguration conf = assembledBaseConfiguration();
            base = KieBaseBuilder.createKieBaseFromModel(models, conf);
            AbstractKieModule.checkStreamMode(defaultKieBaseModel(), conf, base.getKiePackages());
        } catch (RuleBudget.Exceeded | StackOverflowError e) {
            // A changed package's constant condition ran away: say so now, as the whole build would, rather
            // than spend the budget again in it.
            Provenance provenance = Provenance.of(kept.values(), builtAlone);
            List<PolicyMessage> messages = new ArrayList<>(provenance.idsMessage().stream().toList());
            messages.add(PolicyMessage.error(Stage.EVALUATION, null, 0, 0, "Building the rule base stopped: "
                    + PolicyEngine.stopReason(provenance.origins(), provenance.classNames(), e)
                    .orElseGet(() -> "a constant condition failed: " + e)));
            return Optional.of(new Compilation(Optional.empty(), messages));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        Provenance provenance = Provenance.of(parts.values(), List.of());
        return Optional.of(new Compilation(Optional.of(new CompiledPolicy(ruleSet, base, base.newKieSessionsPool(POOLED_SESSIONS),
                ruleNames(base), matchedDecisionTypes(ruleSet), declaresDecisionsGlobal(ruleSet), provenance.origins(),
                provenance.classNames(), provenance.idUses().isEmpty())), provenance.idsMessage().stream().toList()));
    }

    /** A changed package built in a module of its own, clean and secured; its module already closed. */
    private record BuiltAlone(String pkg, RuleModules.Module module, RuleSandbox.Secured secured, Map<String, byte[]> classes,
                              List<RequestIdUse.Finding> idUses) {
    }

    /** {@code files}, the files of package {@code pkg}, built alone; empty unless clean: no message, no refusal. */
    private Optional<BuiltAlone> buildAlone(String pkg, Map<String, String> files) {
        RuleModules.Module module;
        try {
            module = modules.build(files);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        try (module) {
            if (!module.messages().isEmpty()) {
                return Optional.empty();
            }
            RuleSandbox.Secured secured = modules.secure(module);
            if (!secured.safe()) {
                return Optional.empty();
            }
            Map<String, byte[]> classes = module.classes();
            return Optional.of(new BuiltAlone(pkg, module, secured, classes, RequestIdUse.contentUses(classes)));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Where a rule base's generated classes came from, over its packages (kept, or built alone and
     * not yet kept): the origins and names a stopped evaluation is traced with, the request-id
     * findings in {@link RequestIdUse#contentUses}'s order, and the message the first one gives.
     */
    private record Provenance(RuleOrigins origins, Set<String> classNames, List<RequestIdUse.Finding> idUses) {
        static Provenance of(Collection<BuiltPackages.Built> parts, List<BuiltAlone> builtAlone) {
            List<RuleOrigins> origins = new ArrayList<>();
            Set<String> classNames = new HashSet<>();
            java.util.SortedSet<RequestIdUse.Finding> idUses = new java.util.TreeSet<>(
                    java.util.Comparator.comparing(RequestIdUse.Finding::toString));
            for (BuiltPackages.Built part : parts) {
                origins.add(part.origins());
                classNames.addAll(part.classNames());
                idUses.addAll(part.idUses());
            }
            for (BuiltAlone alone : builtAlone) {
                origins.add(alone.secured().origins());
                classNames.addAll(alone.secured().classNames());
                idUses.addAll(alone.idUses());
            }
            return new Provenance(RuleOrigins.union(origins), classNames, List.copyOf(idUses));
        }

        Optional<PolicyMessage> idsMessage() {
            return idUses.isEmpty() ? Optional.empty() : Optional.of(idsLookedInto(idUses.get(0), origins));
        }
    }

    /** The knowledge base a build's module declares: the defaults, as the rule set has no kmodule.xml. */
    private static KieBaseModel defaultKieBaseModel() {
        return KieServices.get().newKieModuleModel().newKieBaseModel(DEFAULT_KIE_BASE).setDefault(true);
    }

    /**
     * The configuration of an assembled base: the options a container takes from the module's
     * knowledge base (equality, event mode, declarative agenda, sequential), and the application's
     * class loader, as no module's loader sees every package (each model's classes come with it).
     */
    private static KieBaseConfiguration assembledBaseConfiguration() {
        KieBaseModel model = defaultKieBaseModel();
        KieBaseConfiguration conf = KieServices.get().newKieBaseConfiguration(null, PolicyCompiler.class.getClassLoader());
        conf.setOption(model.getEqualsBehavior());
        conf.setOption(model.getEventProcessingMode());
        conf.setOption(model.getDeclarativeAgenda());
        conf.setOption(model.getSequential());
        return conf;
    }

    /**
     * Why this rule set's admissions are evaluated request by request: where its rules look into a
     * request id (the first place found), named by rule where the generated class maps back to one.
     */
    private static PolicyMessage idsLookedInto(RequestIdUse.Finding first, RuleOrigins origins) {
        List<String> rules = origins.of(first.className(), first.method());
        return new PolicyMessage(Stage.COMPILE, Severity.INFO, null, 0, 0, "Admissions are evaluated request by request,"
                + " not shared by request shape: " + (rules.isEmpty() ? "generated class " + first.className().replace('/', '.')
                : String.join(", ", rules)) + " uses a request's id other than to join that request's facts (" + first.what()
                + "). See docs/policy-authoring.md, \"Requests of one shape share an admission\".");
    }

    private static Set<String> ruleNames(KieBase base) {
        Set<String> names = new HashSet<>();
        for (KiePackage pkg : base.getKiePackages()) {
            for (Rule rule : pkg.getRules()) {
                names.add(rule.getName());
            }
        }
        return names;
    }

    /** A decision type is worth inserting only if some rule text names it as a pattern, e.g. {@code QuotaVerdict(}. */
    private static Set<Class<?>> matchedDecisionTypes(RuleSet ruleSet) {
        Set<Class<?>> matched = new HashSet<>();
        for (Class<?> type : DECISION_TYPES) {
            Pattern pattern = Pattern.compile("\\b" + type.getSimpleName() + "\\s*\\(");
            for (String text : ruleSet.ruleFiles().values()) {
                if (pattern.matcher(text).find()) {
                    matched.add(type);
                }
            }
        }
        return matched;
    }

    private static boolean declaresDecisionsGlobal(RuleSet ruleSet) {
        return ruleSet.ruleFiles().values().stream().anyMatch(t -> DECISIONS_GLOBAL.matcher(t).find());
    }
}
