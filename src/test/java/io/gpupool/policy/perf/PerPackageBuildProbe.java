package io.gpupool.policy.perf;

import org.kie.api.KieServices;
import org.kie.api.builder.*;
import org.kie.api.KieBase;
import org.drools.model.Model;
import org.drools.modelcompiler.*;
import org.drools.model.codegen.ExecutableModelProject;
import org.drools.compiler.kproject.models.KieBaseModelImpl;
import org.drools.compiler.kie.builder.impl.KieContainerImpl;
import java.nio.file.*;
import java.util.*;

/**
 * A probe for a build of the changed rule files only (docs/performance.md, "where the floor is"):
 * builds a rule directory whole with Drools' executable model, then one module per package, and
 * assembles one base from the packages' models ({@code KieBaseBuilder.createKieBaseFromModel}),
 * printing each step's time and whether the assembled base has the same rules in the same load
 * order (which breaks ties between activations of equal salience). Plain Drools: neither the
 * sandbox nor the reuse of compiled classes that {@code PolicyCompiler} adds.
 * Usage: {@code ... io.gpupool.policy.perf.PerPackageBuildProbe [rules-dir] [rounds]}
 */
public final class PerPackageBuildProbe {
    private static int builds = 0;
    static Collection<Model> build(Map<String,String> files) {
        KieServices ks = KieServices.Factory.get();
        ReleaseId rid = ks.newReleaseId("io.gpupool.probe", "build-" + (builds++), "1.0.0");
        KieFileSystem kfs = ks.newKieFileSystem();
        kfs.generateAndWritePomXML(rid);
        files.forEach((p, t) -> kfs.write("src/main/resources/" + p, t));
        KieBuilder b = ks.newKieBuilder(kfs).buildAll(ExecutableModelProject.class);
        if (b.getResults().hasMessages(Message.Level.ERROR)) throw new RuntimeException(b.getResults().toString());
        CanonicalKieModule m = (CanonicalKieModule) b.getKieModule();
        KieContainerImpl kc = (KieContainerImpl) ks.newKieContainer(rid);
        KieBaseModelImpl kbm = (KieBaseModelImpl) kc.getKieProject().getDefaultKieBaseModel();
        return m.getModelForKBase(kbm);
    }
    static List<String> names(KieBase kb) {
        List<String> r = new ArrayList<>();
        kb.getKiePackages().forEach(p -> p.getRules().forEach(x -> r.add(p.getName() + ":" + x.getName())));
        Collections.sort(r); return r;
    }
    static List<String> order(KieBase kb) {
        List<org.drools.base.definitions.rule.impl.RuleImpl> r = new ArrayList<>();
        kb.getKiePackages().forEach(p -> p.getRules().forEach(x -> r.add((org.drools.base.definitions.rule.impl.RuleImpl) x)));
        r.sort(Comparator.comparingInt(org.drools.base.definitions.rule.impl.RuleImpl::getLoadOrder));
        List<String> out = new ArrayList<>(); r.forEach(x -> out.add(x.getPackageName() + ":" + x.getName())); return out;
    }
    public static void main(String[] a) throws Exception {
        Path root = Paths.get(a.length > 0 ? a[0] : "src/main/resources/rules");
        int rounds = a.length > 1 ? Integer.parseInt(a[1]) : 15;
        Map<String,String> all = new TreeMap<>();
        try (var s = Files.walk(root)) { s.filter(p -> p.toString().endsWith(".drl")).forEach(p -> { try { all.put("rules/" + root.relativize(p), Files.readString(p)); } catch (Exception e) { throw new RuntimeException(e);} }); }
        System.out.println(all.size() + " files");
        Map<String, Collection<Model>> perPackage = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            long t0 = System.nanoTime();
            Collection<Model> whole = build(all);
            long t1 = System.nanoTime();
            KieBase wholeBase = KieBaseBuilder.createKieBaseFromModel(whole, KieServices.get().newKieBaseConfiguration());
            long t2 = System.nanoTime();
            perPackage.clear();
            long fileNs = 0; String changed = "rules/reclamation/reclamation.drl";
            // one module per package (its files together), in the whole build's package order
            Map<String, Map<String,String>> byPackage = new LinkedHashMap<>();
            for (var e : all.entrySet()) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^package\\s+([\\w.]+)").matcher(e.getValue());
                m.find();
                byPackage.computeIfAbsent(m.group(1), k -> new TreeMap<>()).put(e.getKey(), e.getValue() + "\n// " + round);
            }
            List<String> pkgOrder = new ArrayList<>();
            for (String r : order(wholeBase)) { String pk = r.substring(0, r.indexOf(':')); if (!pkgOrder.contains(pk)) pkgOrder.add(pk); }
            for (String pk : pkgOrder) {
                long s0 = System.nanoTime();
                perPackage.put(pk, build(byPackage.get(pk)));
                if (byPackage.get(pk).containsKey(changed)) fileNs = System.nanoTime() - s0;
            }
            List<Model> models = new ArrayList<>();
            for (String pk : new TreeSet<>(pkgOrder)) models.addAll(perPackage.get(pk)); // alphabetical, not the whole build's order: the assembly orders the packages itself
            long t3 = System.nanoTime();
            KieBase combined = KieBaseBuilder.createKieBaseFromModel(models, KieServices.get().newKieBaseConfiguration());
            long t4 = System.nanoTime();
            System.out.printf("round %d: whole build %.0f ms + base %.0f ms; the changed file's package alone %.0f ms; combining %d models %.0f ms; same rules: %s (%d), same load order: %s%n",
                round, (t1-t0)/1e6, (t2-t1)/1e6, fileNs/1e6, models.size(), (t4-t3)/1e6, names(wholeBase).equals(names(combined)), names(combined).size(), order(wholeBase).equals(order(combined)));
        }
    }
}
