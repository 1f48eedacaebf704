package io.gpupool.policy.engine;

import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.sandbox.RuleSandbox;
import org.drools.compiler.compiler.io.memory.MemoryFileSystem;
import org.drools.compiler.kie.builder.impl.MemoryKieModule;
import org.drools.compiler.kproject.models.KieBaseModelImpl;
import org.drools.model.Model;
import org.drools.modelcompiler.CanonicalKieModule;
import org.drools.util.PortablePath;
import org.kie.api.KieServices;
import org.kie.api.builder.KieBuilder;
import org.kie.api.builder.KieFileSystem;
import org.kie.api.builder.Message;
import org.kie.api.builder.ReleaseId;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rule files built into a Kie module with the executable model, and the module's classes verified
 * and instrumented by the sandbox before any of them is loaded. Each file is written at a path
 * matching its {@code package} (Drools warns otherwise); messages point back at the author's file
 * names. Every module is built under one release id: the executable model names the Java it
 * generates after the release id (each package's classes, and through their imports every lambda
 * class), so under one id the same rules generate the same Java in every build, and
 * {@link GeneratedClassReuse} can give the classes compiled before. The Kie repository holds a
 * module by that id, so callers build one module at a time ({@link PolicyCompiler}) and close each.
 */
final class RuleModules {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;?");
    private static final Pattern COLUMN_IN_TEXT = Pattern.compile("Column: (\\d+)\\]");
    private static final String RELEASE_ARTIFACT = "ruleset";
    private final RuleSandbox sandbox = new RuleSandbox();
    private final GeneratedClassReuse generatedClasses;

    RuleModules(GeneratedClassReuse generatedClasses) {
        this.generatedClasses = generatedClasses;
    }

    /** A module built from some of a rule set's files; removed from the Kie repository by {@link #close}. */
    record Module(KieServices services, ReleaseId releaseId, KieBuilder builder, List<PolicyMessage> messages)
            implements AutoCloseable {
        CanonicalKieModule kieModule() {
            return (CanonicalKieModule) builder.getKieModule();
        }

        /** The module's class files by internal name ({@code a/b/C}), as the sandbox left them once it ran. */
        Map<String, byte[]> classes() {
            Map<String, byte[]> byName = new HashMap<>();
            kieModule().getClassesMap().forEach((path, bytes) -> {
                if (path.endsWith(".class")) {
                    byName.put(path.substring(0, path.length() - ".class".length()), bytes);
                }
            });
            return byName;
        }

        /**
         * The module's models. Their constructors run the rule-building code, which evaluates constant
         * conditions (a container building a base makes them the same way): call under the build's budget.
         */
        Collection<Model> models() {
            KieBaseModelImpl kieBase = (KieBaseModelImpl) kieModule().getKieModuleModel().getKieBaseModels().values()
                    .iterator().next();
            return kieModule().getModelForKBase(kieBase);
        }

        @Override
        public void close() {
            services.getRepository().removeKieModule(releaseId);
        }
    }

    /** Builds {@code files} (author path → text) into a module; throws what the executable model throws for what it cannot translate. */
    Module build(Map<String, String> files) {
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

    /**
     * Verifies and instruments the module's classes before any of them is loaded (the build only
     * compiles them): the instrumented bytes replace the compiled ones in the module's file system,
     * which the module's class loader reads.
     */
    RuleSandbox.Secured secure(Module built) {
        CanonicalKieModule module = built.kieModule();
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
}
