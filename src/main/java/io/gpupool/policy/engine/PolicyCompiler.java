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
import org.drools.compiler.compiler.io.memory.MemoryFileSystem;
import org.drools.compiler.kie.builder.impl.AbstractKieModule;
import org.drools.compiler.kie.builder.impl.MemoryKieModule;
import org.drools.compiler.kproject.models.KieBaseModelImpl;
import org.drools.model.Model;
import org.drools.modelcompiler.KieBaseBuilder;
import org.drools.modelcompiler.CanonicalKieModule;
import org.drools.util.PortablePath;
import org.kie.api.KieBase;
import org.kie.api.KieBaseConfiguration;
import org.kie.api.builder.model.KieBaseModel;
import org.kie.api.KieServices;
import org.kie.api.builder.KieBuilder;
import org.kie.api.builder.KieFileSystem;
import org.kie.api.builder.Message;
import org.kie.api.builder.ReleaseId;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compiles a rule set into a {@link CompiledPolicy}. Each file is written at a path matching its
 * {@code package} (Drools warns otherwise). Every build runs under one release id, one build at a
 * time: the executable model names the Java it generates after the release id (each package's
 * classes, and through their imports every lambda class), so under one id the same rules generate
 * the same Java in every build, and {@link GeneratedClassReuse} can give the classes compiled
 * before; and the Kie repository holds a module by its id from the build to the container, which
 * two builds under one id at once would share. The module is dropped from the Kie repository once
 * the base exists, so repeated uploads do not accumulate. Messages point back at the author's file names.
 */
public final class PolicyCompiler {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;?");
    private static final List<Class<?>> DECISION_TYPES = List.of(TierAssignment.class, ProfileLabel.class,
            AdmissionDecision.class, PriorityAssignment.class, QuotaVerdict.class, PreemptionCandidate.class,
            ReclaimOrder.class, io.gpupool.policy.decision.ApprovalRequirement.class);
    private static final Pattern DECISIONS_GLOBAL = Pattern.compile("(?m)^\\s*global\\s+[\\w.]*Decisions\\s+decisions\\b");
    private static final Pattern COLUMN_IN_TEXT = Pattern.compile("Column: (\\d+)\\]");
    private static final int POOLED_SESSIONS = 4;
    /** The one release id of every build (see the class comment), and the lock that keeps them one at a time. */
    private static final String RELEASE_ARTIFACT = "ruleset";
    private static final String DEFAULT_KIE_BASE = "defaultKieBase";
    private static final Object ONE_BUILD_AT_A_TIME = new Object();
    private final RuleSandbox sandbox = new RuleSandbox();
    /** The generated Java compiled by the builds before, shared by every compiler of the process. */
    private static final GeneratedClassReuse GENERATED_CLASSES = new GeneratedClassReuse();
    private final GeneratedClassReuse generatedClasses;
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
        this.generatedClasses = generatedClasses;
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

    /** A module built from some of a rule set's files under the one release id; removed from the Kie repository by {@link #close}. */
    private record Module(KieServices services, ReleaseId releaseId, KieBuilder builder, List<PolicyMessage> messages)
            implements AutoCloseable {
        CanonicalKieModule kieModule() {
            return (CanonicalKieModule) builder.getKieModule();
        }

        @Override
        public void close() {
            services.getRepository().removeKieModule(releaseId);
        }
    }

    /** Builds {@code files} (author path → text) into a module; throws what the executable model throws for what it cannot translate. */
    private Module buildModule(Map<String, String> files) {
        KieServices ks = KieServices.Factory.get();
        KieFileSystem kfs = ks.newKieFileSystem();
        ReleaseId releaseId = ks.newReleaseId("io.gpupool.policy", RELEASE_ARTIFACT, "1.0.0");
        kfs.generateAndWritePomXML(releaseId);
        Map<String, String> authorPathByKiePath = new HashMap<>();
        for (Map.Entry<String, String> file : files.entrySet()) {
            String kiePath = kiePath(file.getKey(), file.getValue());
            authorPathByKiePath.put(kiePath, file.getKey());
            kfs.write(kiePath, file.getValue());
        }
        KieBuilder builder;
        try {
            // The executable model's build, but its generated Java compiled only where earlier builds did not.
            builder = ((org.drools.compiler.kie.builder.impl.KieBuilderImpl) ks.newKieBuilder(kfs))
                    .buildAll(ReusingModelProject.supplier(generatedClasses), path -> true);
        } catch (RuntimeException e) {
            ks.getRepository().removeKieModule(releaseId);
            throw e;
        }
        List<PolicyMessage> messages = new ArrayList<>();
        for (Message m : builder.getResults().getMessages()) {
            String path = m.getPath() == null ? null : "src/main/resources/" + m.getPath();
            messages.add(new PolicyMessage(Stage.COMPILE, severity(m.getLevel()),
                    authorPathByKiePath.getOrDefault(path, m.getPath()), m.getLine(), column(m), m.getText().strip()));
        }
        return new Module(ks, releaseId, builder, messages);
    }

    private Compilation buildWhole(RuleSet ruleSet) {
        Module module;
        try {
            module = buildModule(ruleSet.ruleFiles());
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
            RuleSandbox.Secured secured = secure(module.kieModule());
            if (!secured.safe()) {
                messages.addAll(RuleSources.of(ruleSet).refusals(secured));
                return new Compilation(Optional.empty(), messages);
            }
            // The verified classes (instrumented or not: the budget's checks touch no request id).
            Map<String, byte[]> classes = classesByName(module.kieModule().getClassesMap());
            List<RequestIdUse.Finding> idUses = RequestIdUse.contentUses(classes);
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
        Map<String, BuiltPackages.Built> parts = new HashMap<>(kept);
        List<Module> modules = new ArrayList<>();
        List<RuleSandbox.Secured> secured = new ArrayList<>();
        List<Map<String, byte[]>> classes = new ArrayList<>();
        List<List<RequestIdUse.Finding>> moduleIdUses = new ArrayList<>();
        for (Map<String, String> files : changed.values()) {
            Module module;
            try {
                module = buildModule(files);
            } catch (RuntimeException e) {
                return Optional.empty();
            }
            try (module) {
                if (!module.messages().isEmpty()) {
                    return Optional.empty();
                }
                RuleSandbox.Secured safe = secure(module.kieModule());
                if (!safe.safe()) {
                    return Optional.empty();
                }
                Map<String, byte[]> built = classesByName(module.kieModule().getClassesMap());
                modules.add(module);
                secured.add(safe);
                classes.add(built);
                moduleIdUses.add(RequestIdUse.contentUses(built));
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
        KieBase base;
        // One budget for every making of models: the changed packages' (their constant conditions run here
        // first), then the kept ones' again for the base (theirs ran before, in their own build).
        try (RuleBudget.Scope budget = RuleBudget.open(BUILD_BUDGET)) {
            Map<String, Collection<Model>> made = new HashMap<>();
            List<String> changedPackages = List.copyOf(changed.keySet());
            for (int i = 0; i < modules.size(); i++) {
                Collection<Model> models = models(modules.get(i));
                String pkg = changedPackages.get(i);
                Map<String, BuiltPackages.Built> built = keep(packages, List.of(pkg), classes.get(i), models, moduleIdUses.get(i));
                if (!built.containsKey(pkg)) {
                    return Optional.empty(); // not what its text was read as, or it uses another package's classes
                }
                parts.putAll(built);
                made.put(pkg, models);
            }
            List<Model> models = new ArrayList<>();
            for (String pkg : packages.filesByPackage().keySet()) {
                models.addAll(made.containsKey(pkg) ? made.get(pkg) : parts.get(pkg).newModels());
            }
            base = KieBaseBuilder.createKieBaseFromModel(models, assembledBaseConfiguration());
            AbstractKieModule.checkStreamMode(defaultKieBaseModel(), assembledBaseConfiguration(), base.getKiePackages());
        } catch (RuleBudget.Exceeded | StackOverflowError e) {
            // A changed package's constant condition ran away: say so now, as the whole build would, rather
            // than spend the budget again in it.
            return Optional.of(stopped(kept.values(), secured, moduleIdUses.stream().flatMap(List::stream).toList(), e));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        RuleOrigins origins = RuleOrigins.union(parts.values().stream().map(BuiltPackages.Built::origins).toList());
        Set<String> classNames = new HashSet<>();
        java.util.SortedSet<RequestIdUse.Finding> idUses = findings(List.of());
        for (BuiltPackages.Built part : parts.values()) {
            classNames.addAll(part.classNames());
            idUses.addAll(part.idUses());
        }
        List<PolicyMessage> messages = new ArrayList<>();
        if (!idUses.isEmpty()) {
            messages.add(idsLookedInto(idUses.first(), origins));
        }
        return Optional.of(new Compilation(Optional.of(new CompiledPolicy(ruleSet, base, base.newKieSessionsPool(POOLED_SESSIONS),
                ruleNames(base), matchedDecisionTypes(ruleSet), declaresDecisionsGlobal(ruleSet), origins, classNames,
                idUses.isEmpty())), messages));
    }

    /**
     * The failed compilation of a rule set whose changed packages (built in a module, {@code secured})
     * stopped making their rule base: the messages the whole build gives, which sees the same
     * classes, request-id findings and origins.
     */
    private static Compilation stopped(Collection<BuiltPackages.Built> kept, List<RuleSandbox.Secured> secured,
                                       List<RequestIdUse.Finding> moduleIdUses, Throwable e) {
        List<RuleOrigins> origins = new ArrayList<>(kept.stream().map(BuiltPackages.Built::origins).toList());
        Set<String> classNames = new HashSet<>();
        for (RuleSandbox.Secured module : secured) {
            origins.add(module.origins());
            classNames.addAll(module.classNames());
        }
        RuleOrigins allOrigins = RuleOrigins.union(origins);
        java.util.SortedSet<RequestIdUse.Finding> idUses = findings(moduleIdUses);
        for (BuiltPackages.Built part : kept) {
            classNames.addAll(part.classNames());
            idUses.addAll(part.idUses());
        }
        List<PolicyMessage> messages = new ArrayList<>();
        if (!idUses.isEmpty()) {
            messages.add(idsLookedInto(idUses.first(), allOrigins));
        }
        messages.add(PolicyMessage.error(Stage.EVALUATION, null, 0, 0, "Building the rule base stopped: "
                + PolicyEngine.stopReason(allOrigins, classNames, e).orElseGet(() -> "a constant condition failed: " + e)));
        return new Compilation(Optional.empty(), messages);
    }

    /** Request-id findings in {@link RequestIdUse#contentUses}'s order, which picks the one a message names. */
    private static java.util.SortedSet<RequestIdUse.Finding> findings(Collection<RequestIdUse.Finding> findings) {
        java.util.SortedSet<RequestIdUse.Finding> sorted = new java.util.TreeSet<>(java.util.Comparator.comparing(RequestIdUse.Finding::toString));
        sorted.addAll(findings);
        return sorted;
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

    /** Keeps the packages {@code built} in a module that stand alone ({@link BuiltPackages#keepable}), and returns them. */
    private Map<String, BuiltPackages.Built> keep(BuiltPackages.Packages packages, Collection<String> built,
                                                  Map<String, byte[]> classes, Collection<Model> models,
                                                  List<RequestIdUse.Finding> idUses) {
        Map<String, BuiltPackages.Built> keepable = BuiltPackages.keepable(built, classes, models, idUses);
        keepable.forEach((pkg, part) -> builtPackages.keep(packages.keyByPackage().get(pkg), part));
        return keepable;
    }

    /**
     * The module's models. Their constructors run the rule-building code, which evaluates constant
     * conditions (a container building a base makes them the same way): call under the build's budget.
     */
    private static Collection<Model> models(Module module) {
        KieBaseModelImpl kieBase = (KieBaseModelImpl) module.kieModule().getKieModuleModel().getKieBaseModels().values()
                .iterator().next();
        return module.kieModule().getModelForKBase(kieBase);
    }

    /**
     * Verifies and instruments the build's classes before any of them is loaded (the build only
     * compiles them): the instrumented bytes replace the compiled ones in the module's file system,
     * which the module's class loader reads.
     */
    private RuleSandbox.Secured secure(CanonicalKieModule module) {
        MemoryFileSystem files = ((MemoryKieModule) module.getInternalKieModule()).getMemoryFileSystem();
        Map<String, byte[]> instrumented = new HashMap<>();
        RuleSandbox.Secured secured = sandbox.secure(module.getClassesMap(), (path, bytes) -> {
            files.write(PortablePath.of(path), bytes, true);
            instrumented.put(path, bytes);
        });
        if (secured.safe()) {
            module.getModuleClassLoader().storeClasses(instrumented);
        }
        return secured;
    }

    private static String kiePath(String authorPath, String text) {
        Matcher m = PACKAGE.matcher(text);
        // The folder of the package the file declares, read as the kept packages are; else the first word after "package".
        String dir = BuiltPackages.packageOf(text).or(() -> m.find() ? Optional.of(m.group(1)) : Optional.empty())
                .map(pkg -> pkg.replace('.', '/') + "/").orElse("");
        return "src/main/resources/" + dir + authorPath.replace('/', '_');
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

    /** A build's class files ({@code a/b/C.class} → bytes) by internal name ({@code a/b/C}). */
    private static Map<String, byte[]> classesByName(Map<String, byte[]> classFiles) {
        Map<String, byte[]> byName = new HashMap<>();
        classFiles.forEach((path, bytes) -> {
            if (path.endsWith(".class")) {
                byName.put(path.substring(0, path.length() - ".class".length()), bytes);
            }
        });
        return byName;
    }

    /** Drools leaves the column at 0 for constraint errors but names it in the text: "[Line: 6, Column: 4]". */
    private static int column(Message m) {
        if (m.getColumn() > 0) {
            return m.getColumn();
        }
        Matcher inText = COLUMN_IN_TEXT.matcher(m.getText());
        return inText.find() ? Integer.parseInt(inText.group(1)) : 0;
    }

    private static Severity severity(Message.Level level) {
        return switch (level) {
            case ERROR -> Severity.ERROR;
            case WARNING -> Severity.WARNING;
            default -> Severity.INFO;
        };
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
