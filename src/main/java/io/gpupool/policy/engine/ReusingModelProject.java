package io.gpupool.policy.engine;

import org.drools.compiler.compiler.io.File;
import org.drools.compiler.compiler.io.memory.MemoryFile;
import org.drools.compiler.compiler.io.memory.MemoryFileSystem;
import org.drools.compiler.kie.builder.impl.BuildContext;
import org.drools.compiler.kie.builder.impl.CompilationProblemAdapter;
import org.drools.compiler.kie.builder.impl.InternalKieModule;
import org.drools.compiler.kie.builder.impl.KieModuleKieProject;
import org.drools.model.codegen.execmodel.CanonicalModelBuildContext;
import org.drools.model.codegen.execmodel.CanonicalModelKieProject;
import org.drools.model.codegen.execmodel.ModelBuilderImpl;
import org.drools.model.codegen.execmodel.ModelSourceClass;
import org.drools.model.codegen.execmodel.ModelWriter;
import org.drools.util.ClassUtils;
import org.drools.util.PortablePath;
import org.drools.wiring.api.classloader.ProjectClassLoader;
import org.kie.api.builder.Message;
import org.kie.memorycompiler.CompilationProblem;
import org.kie.memorycompiler.CompilationResult;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Drools' executable model project ({@code ExecutableModelProject}) with its Java compile going
 * through {@link GeneratedClassReuse}: the generated sources a build shares with earlier builds
 * are not compiled again. Everything else is the executable model's own project output, written
 * as Drools 10.2's {@code CanonicalModelKieProject.writeProjectOutput} writes it: the same sources,
 * the same messages for a source in error, the same model and class-name files. Used as
 * {@code kieBuilderImpl.buildAll(ReusingModelProject.supplier(reuse), path -> true)}, which is what
 * {@code buildAll(ExecutableModelProject.class)} does with the executable model's own project.
 */
final class ReusingModelProject {
    private ReusingModelProject() {
    }

    static BiFunction<InternalKieModule, ClassLoader, KieModuleKieProject> supplier(GeneratedClassReuse reuse) {
        return (module, classLoader) -> new Project(module, classLoader, reuse);
    }

    private static final class Project extends CanonicalModelKieProject {
        private final GeneratedClassReuse reuse;

        Project(InternalKieModule module, ClassLoader classLoader, GeneratedClassReuse reuse) {
            super(module, classLoader);
            this.reuse = reuse;
        }

        @Override
        public void writeProjectOutput(MemoryFileSystem trgMfs, BuildContext buildContext) {
            MemoryFileSystem srcMfs = new MemoryFileSystem();
            ModelWriter modelWriter = new ModelWriter();
            Collection<String> modelFiles = new HashSet<>();
            Collection<String> sourceFiles = new HashSet<>();
            Collection<String> ruleUnitClassNames = new HashSet<>();
            Map<String, List<String>> modelsByKBase = new HashMap<>();
            for (Map.Entry<String, ModelBuilderImpl> builder : modelBuilders.entrySet()) {
                @SuppressWarnings("unchecked")
                ModelWriter.Result result = modelWriter.writeModel(srcMfs, builder.getValue().getPackageSources());
                modelFiles.addAll(result.getModelFiles());
                sourceFiles.addAll(result.getSourceFiles());
                ruleUnitClassNames.addAll(result.getRuleUnitClassNames());
                List<String> forKieBase = new ArrayList<>(result.getModelFiles());
                forKieBase.addAll(((CanonicalModelBuildContext) buildContext).getNotOwnedModelFiles(modelBuilders, builder.getKey()));
                modelsByKBase.put(builder.getKey(), forKieBase);
            }
            InternalKieModule kieModule = getInternalKieModule();
            ModelSourceClass modelSourceClass = new ModelSourceClass(kieModule.getReleaseId(),
                    kieModule.getKieModuleModel().getKieBaseModels(), modelsByKBase, hasDynamicClassLoader());
            String projectSourcePath = modelWriter.getBasePath().asString() + "/" + modelSourceClass.getName();
            srcMfs.write(projectSourcePath, modelSourceClass.generate().getBytes());
            sourceFiles.add(projectSourcePath);

            Set<PortablePath> origFileNames = new HashSet<>(trgMfs.getFilePaths());
            CompilationResult res = reuse.compile(sourceFiles.toArray(String[]::new), srcMfs, trgMfs, getClassLoader());

            Stream.of(res.getErrors()).collect(Collectors.groupingBy(CompilationProblem::getFileName)).forEach((name, errors) -> {
                errors.forEach(m -> buildContext.getMessages().addMessage(new CompilationProblemAdapter(m)));
                File srcFile = srcMfs.getFile(name);
                if (srcFile instanceof MemoryFile memoryFile) {
                    String src = new String(srcMfs.getFileContents(memoryFile));
                    buildContext.getMessages().addMessage(Message.Level.ERROR, name, "Java source of " + name + " in error:\n" + src);
                }
            });
            for (CompilationProblem problem : res.getWarnings()) {
                buildContext.getMessages().addMessage(new CompilationProblemAdapter(problem));
            }
            if (ProjectClassLoader.isEnableStoreFirst()) {
                Set<PortablePath> generated = new HashSet<>(trgMfs.getFilePaths());
                generated.removeAll(origFileNames);
                modelWriter.writeGeneratedClassNamesFile(generated.stream().map(PortablePath::asString)
                        .map(ClassUtils::convertResourceToClassName).collect(Collectors.toSet()), trgMfs, kieModule.getReleaseId());
            }
            modelWriter.writeModelFile(modelFiles, trgMfs, kieModule.getReleaseId());
            modelWriter.writeRuleUnitServiceFile(ruleUnitClassNames, trgMfs);
        }
    }
}
