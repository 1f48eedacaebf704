package io.gpupool.policy.engine;

import org.drools.compiler.compiler.io.memory.MemoryFileSystem;
import org.drools.model.codegen.execmodel.JavaParserCompiler;
import org.drools.util.PortablePath;
import org.kie.memorycompiler.CompilationProblem;
import org.kie.memorycompiler.CompilationResult;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java compiler of rule builds, compiling only the generated sources it has not compiled before.
 * The executable model turns every rule set into Java (a class per constraint, consequence and
 * extractor, named after a hash of its code, plus the rule and package classes), and a candidate
 * usually differs from the rule sets compiled before it in a few rules: the rest of its Java is
 * the same text. Each source's class files are kept under a key made of its own text and the text
 * of every generated source it can reach by name, directly or through the ones it names (a class's
 * bytes depend on its own source and on the signatures, constants and supertypes of what it uses;
 * the application's own classes do not change within a process). A build writes the kept class
 * files of the sources whose key it knows into its output first, where the compiler finds them as
 * binary types, and compiles the others.
 *
 * <p>What is kept is the compiler's output, never what runs: the sandbox verifies and instruments
 * every class of every build, kept or compiled, before any is loaded ({@code PolicyCompiler}), so a
 * kept class is checked against the allowlist in force at each build. Only sources the compiler
 * compiled without any problem are kept (a build's warnings are its own), and nothing of a build
 * whose output cannot be attributed to its sources (a class file not named after one of them).
 *
 * <p>Bounded by the bytes it holds; the least recently used sources go first.
 */
final class GeneratedClassReuse {
    /** The executable model writes its sources under this folder, which the compiler strips off class names. */
    private static final String SOURCE_FOLDER = "src/main/java/";
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
    /** A class-body member's first line in the executable model's generated Java (four spaces in). */
    private static final Pattern MEMBER = Pattern.compile("(?m)^    [^ }/@*].*$");
    private static final Pattern RULE_METHOD = Pattern.compile("    public static org\\.drools\\.model\\.Rule rule_\\w+\\(\\) \\{");
    private static final Pattern RULE_METHODS_FILE = Pattern.compile(".*/Rules[0-9A-F]+RuleMethods\\d+\\.java");
    private static final long DEFAULT_BYTES = 32L << 20;

    private final long maxBytes;
    private long heldBytes;
    private long compiledSources;
    private long reusedSources;
    private final LinkedHashMap<String, Map<String, byte[]>> classesByKey = new LinkedHashMap<>(256, 0.75f, true);

    GeneratedClassReuse() {
        this(DEFAULT_BYTES);
    }

    GeneratedClassReuse(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Sources compiled and sources whose kept classes were used, since this was made: what a test can observe. */
    record Counts(long compiled, long reused) {
    }

    synchronized Counts counts() {
        return new Counts(compiledSources, reusedSources);
    }

    /**
     * Compiles {@code sources} (paths in {@code sourceFiles}) into {@code output} as the executable model's
     * own compile does, but for the sources whose classes are kept: those are written to {@code output}.
     */
    CompilationResult compile(String[] sources, MemoryFileSystem sourceFiles, MemoryFileSystem output, ClassLoader classLoader) {
        Map<String, String> keys = keys(sources, sourceFiles);
        List<String> toCompile = new ArrayList<>();
        Set<PortablePath> before = new HashSet<>(output.getFilePaths());
        int reused = 0;
        for (String source : sources) {
            Map<String, byte[]> kept = keys.get(source) == null ? null : kept(keys.get(source));
            if (kept == null) {
                toCompile.add(source);
            } else {
                kept.forEach((path, bytes) -> output.write(PortablePath.of(path), bytes.clone()));
                before.addAll(kept.keySet().stream().map(PortablePath::of).toList());
                reused++;
            }
        }
        CompilationResult result = toCompile.isEmpty() ? new CompilationResult(new CompilationProblem[0])
                : JavaParserCompiler.getCompiler().compile(toCompile.toArray(String[]::new), sourceFiles, output, classLoader);
        synchronized (this) {
            compiledSources += toCompile.size();
            reusedSources += reused;
        }
        keep(toCompile, keys, result, before, output);
        return result;
    }

    private synchronized Map<String, byte[]> kept(String key) {
        return classesByKey.get(key);
    }

    /** Keeps the classes of each compiled source that had no problem, when every new class file is one of theirs. */
    private void keep(List<String> compiled, Map<String, String> keys, CompilationResult result, Set<PortablePath> before,
                      MemoryFileSystem output) {
        Set<String> withProblems = new HashSet<>();
        for (CompilationProblem p : result.getErrors()) {
            withProblems.add(p.getFileName());
        }
        for (CompilationProblem p : result.getWarnings()) {
            withProblems.add(p.getFileName());
        }
        Map<String, String> sourceByTopLevelClass = new HashMap<>();
        for (String source : compiled) {
            if (source.startsWith(SOURCE_FOLDER) && source.endsWith(".java")) {
                sourceByTopLevelClass.put(source.substring(SOURCE_FOLDER.length(), source.length() - ".java".length()), source);
            }
        }
        Map<String, Map<String, byte[]>> classesBySource = new HashMap<>();
        for (PortablePath path : output.getFilePaths()) {
            if (before.contains(path)) {
                continue;
            }
            String file = path.asString();
            if (!file.endsWith(".class")) {
                continue;
            }
            String name = file.substring(0, file.length() - ".class".length());
            int nested = name.indexOf('$', name.lastIndexOf('/') + 1);
            String source = sourceByTopLevelClass.get(nested < 0 ? name : name.substring(0, nested));
            if (source == null) {
                return; // a class file of no source of its name: nothing of this build is kept
            }
            classesBySource.computeIfAbsent(source, s -> new HashMap<>()).put(file, output.read(path).clone());
        }
        synchronized (this) {
            classesBySource.forEach((source, classes) -> {
                String key = keys.get(source);
                if (key != null && !withProblems.contains(source) && !withProblems.contains(PortablePath.of(source).asString())) {
                    Map<String, byte[]> previous = classesByKey.put(key, Map.copyOf(classes));
                    heldBytes += size(classes) - (previous == null ? 0 : size(previous));
                }
            });
            var eldest = classesByKey.entrySet().iterator();
            while (heldBytes > maxBytes && eldest.hasNext()) {
                heldBytes -= size(eldest.next().getValue());
                eldest.remove();
            }
        }
    }

    private static long size(Map<String, byte[]> classes) {
        long total = 0;
        for (byte[] bytes : classes.values()) {
            total += bytes.length;
        }
        return total;
    }

    /**
     * Each source's key: its path and text, and the paths and texts of the generated sources it reaches
     * through the simple class names it mentions (closed transitively). A source of no readable text gets none.
     * Not followed: a rule-method class ({@code Rules<hash>RuleMethods<n>}) whose every member is a
     * {@code public static org.drools.model.Rule rule_<name>()}. What its users compile against is then
     * that shape and the method names they write themselves, so what changes inside its methods (a rule's
     * constraints, and the names the executable model numbers afresh in every build of the process for
     * unnamed patterns) changes that class alone; followed, it would change every class of its package,
     * since each lambda imports the package's rule class, which names its rule-method classes.
     */
    private static Map<String, String> keys(String[] sources, MemoryFileSystem sourceFiles) {
        Map<String, String> text = new HashMap<>();
        Map<String, List<String>> bySimpleName = new HashMap<>();
        for (String source : sources) {
            byte[] bytes = sourceFiles.read(PortablePath.of(source));
            if (bytes == null) {
                continue;
            }
            text.put(source, new String(bytes, StandardCharsets.UTF_8));
            String file = source.substring(source.lastIndexOf('/') + 1);
            String simple = file.endsWith(".java") ? file.substring(0, file.length() - ".java".length()) : file;
            bySimpleName.computeIfAbsent(simple, s -> new ArrayList<>()).add(source);
        }
        Set<String> ruleMethodsShaped = new HashSet<>();
        text.forEach((source, code) -> {
            if (RULE_METHODS_FILE.matcher(source).matches() && MEMBER.matcher(code).results()
                    .allMatch(member -> RULE_METHOD.matcher(member.group()).matches())) {
                ruleMethodsShaped.add(source);
            }
        });
        Map<String, Set<String>> named = new HashMap<>();
        text.forEach((source, code) -> {
            Set<String> refs = new HashSet<>();
            Matcher m = IDENTIFIER.matcher(code);
            while (m.find()) {
                List<String> targets = bySimpleName.get(m.group());
                if (targets != null) {
                    refs.addAll(targets);
                }
            }
            refs.remove(source);
            refs.removeAll(ruleMethodsShaped);
            named.put(source, refs);
        });
        Map<String, String> digest = new HashMap<>();
        text.forEach((source, code) -> digest.put(source, sha256(source + '\0' + code)));
        Map<String, String> keys = new HashMap<>();
        for (String source : text.keySet()) {
            Set<String> reached = new TreeSet<>();
            Deque<String> next = new ArrayDeque<>(named.get(source));
            while (!next.isEmpty()) {
                String s = next.pop();
                if (!s.equals(source) && reached.add(s)) {
                    next.addAll(named.get(s));
                }
            }
            StringBuilder key = new StringBuilder(digest.get(source));
            reached.forEach(s -> key.append('|').append(digest.get(s)));
            keys.put(source, sha256(key.toString()));
        }
        return keys;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
