package io.gpupool.policy.engine;

import io.gpupool.policy.sandbox.RuleOrigins;
import org.drools.model.Model;
import org.objectweb.asm.ClassReader;

import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rule packages of earlier builds, kept so that a rule set sharing packages with them builds
 * only the packages it changed. A candidate usually edits one file of nine; parsing the others and
 * generating their Java again was most of a dry-run's build (docs/performance.md).
 *
 * <p>The executable model turns each rule package into a {@link Model} of its own, and a rule base
 * is assembled from the models of its packages; so a package built in an earlier module gives the
 * same rules as a package built in this one when nothing in it depends on another package. That
 * is checked on what was compiled, not on the text: every generated class a package's classes
 * name (in any constant: a type, a descriptor, a method's owner) must be the package's own, so a
 * package calling another's function, matching another's declared type or running another's query
 * is never kept. The package is the unit, never the file: the files of one package build together,
 * which keeps the rules' load order (it breaks ties between activations of equal salience) the one
 * of a whole build.
 *
 * <p>What is kept was verified by the sandbox and instrumented with the budget in the build that
 * made it (the sandbox's allowlist is fixed in a process): a kept package's classes are the loaded,
 * checked ones, never bytes compiled again. Each kept package is held by its content: package name,
 * file paths and texts. Bounded by count; the least recently used go first.
 */
final class BuiltPackages {
    /** A package name the scan accepts: plain ASCII identifiers (anything else is left to the whole build). */
    private static final Pattern PACKAGE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*");
    /**
     * A type declared in the rules (or metadata given to an existing type) belongs to the rule base, not
     * to its package. The word anywhere, comments and strings included: a false alarm only builds whole.
     */
    private static final Pattern DECLARE = Pattern.compile("\\bdeclare\\b");
    /** Internal class names inside a constant: {@code a/b/C}, {@code La/b/C;}, {@code (La/b/C;)V}. */
    private static final Pattern INTERNAL_NAME = Pattern.compile(
            "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(?:/\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)+");
    private static final int UTF8 = 1;
    /** Where the executable model writes the module's own project class, which no package owns. */
    private static final String PROJECT_MODEL_FOLDER = "org/drools/project/model/";
    static final int DEFAULT_PACKAGES = 48;

    /** One rule package, built, verified and instrumented: what an assembled rule base takes from it. */
    record Built(String name, List<Class<? extends Model>> modelTypes, RuleOrigins origins, Set<String> classNames,
                 List<RequestIdUse.Finding> idUses) {
        Built {
            modelTypes = List.copyOf(modelTypes);
            classNames = Set.copyOf(classNames);
            idUses = List.copyOf(idUses);
        }

        /**
         * New instances of the package's models. Their constructors run the rule-building code, which
         * evaluates constant conditions: call under a budget, as a container building a base does.
         */
        List<Model> newModels() {
            List<Model> models = new ArrayList<>();
            for (Class<? extends Model> type : modelTypes) {
                try {
                    models.add(type.getDeclaredConstructor().newInstance());
                } catch (InvocationTargetException e) {
                    // What the rule-building code threw (a spent budget is an Error), as the build would have seen it.
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(e.getCause());
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("The kept model " + type.getName() + " cannot be made again", e);
                }
            }
            return models;
        }
    }

    /**
     * A rule set's files by rule package, in the rule set's file order, with each package's content
     * key; {@code assemblable} is false where the rule set must be built whole (a file without a
     * package, or a {@code declare}).
     */
    record Packages(Map<String, Map<String, String>> filesByPackage, Map<String, String> keyByPackage, boolean assemblable) {
        static Packages of(Map<String, String> ruleFiles) {
            Map<String, Map<String, String>> byPackage = new LinkedHashMap<>();
            boolean assemblable = true;
            for (Map.Entry<String, String> file : ruleFiles.entrySet()) {
                Optional<String> pkg = packageOf(file.getValue());
                if (pkg.isEmpty() || DECLARE.matcher(file.getValue()).find()) {
                    assemblable = false;
                }
                byPackage.computeIfAbsent(pkg.orElse(""), p -> new LinkedHashMap<>()).put(file.getKey(), file.getValue());
            }
            Map<String, String> keys = new LinkedHashMap<>();
            byPackage.forEach((pkg, files) -> keys.put(pkg, key(pkg, files)));
            return new Packages(byPackage, keys, assemblable);
        }
    }

    /**
     * The package a DRL file declares, read as the DRL grammar does: the first statement, after
     * whitespace and comments, is {@code package name;} or there is none. Empty when there is none
     * or the name is not one {@link #PACKAGE_NAME} accepts (the whole build then decides).
     */
    static Optional<String> packageOf(String drl) {
        int i = 0;
        while (i < drl.length()) {
            if (Character.isWhitespace(drl.charAt(i))) {
                i++;
            } else if (drl.startsWith("//", i) || drl.startsWith("#", i)) {
                int end = drl.indexOf('\n', i);
                i = end < 0 ? drl.length() : end + 1;
            } else if (drl.startsWith("/*", i)) {
                int end = drl.indexOf("*/", i + 2);
                if (end < 0) {
                    return Optional.empty();
                }
                i = end + 2;
            } else {
                break;
            }
        }
        if (!drl.startsWith("package", i) || i + 7 >= drl.length() || !Character.isWhitespace(drl.charAt(i + 7))) {
            return Optional.empty();
        }
        Matcher name = PACKAGE_NAME.matcher(drl);
        int start = i + 7;
        while (start < drl.length() && (drl.charAt(start) == ' ' || drl.charAt(start) == '\t')) {
            start++;
        }
        if (!name.find(start) || name.start() != start) {
            return Optional.empty();
        }
        // What follows the name must end the statement: a semicolon or a line break, not more of a name.
        int after = name.end();
        while (after < drl.length() && (drl.charAt(after) == ' ' || drl.charAt(after) == '\t')) {
            after++;
        }
        boolean ends = after == drl.length() || drl.charAt(after) == ';' || drl.charAt(after) == '\n' || drl.charAt(after) == '\r';
        return ends ? Optional.of(name.group()) : Optional.empty();
    }

    private final int capacity;
    private final LinkedHashMap<String, Built> byKey = new LinkedHashMap<>(64, 0.75f, true);
    private long assembled;

    BuiltPackages() {
        this(DEFAULT_PACKAGES);
    }

    /** Keeping at most {@code capacity} packages; 0 keeps none, so every rule set is built whole (tests). */
    BuiltPackages(int capacity) {
        this.capacity = capacity;
    }

    boolean keeps() {
        return capacity > 0;
    }

    synchronized Optional<Built> kept(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    synchronized void keep(String key, Built built) {
        if (capacity == 0) {
            return;
        }
        byKey.put(key, built);
        while (byKey.size() > capacity) {
            byKey.remove(byKey.keySet().iterator().next());
        }
    }

    /** Rule bases assembled from kept packages since this was made: what a test can observe. */
    synchronized long assembledBases() {
        return assembled;
    }

    synchronized void countAssembled() {
        assembled++;
    }

    /**
     * The packages of a build that can be kept, by name: those of {@code packages} whose classes name
     * no other package's generated class, each with its models ({@code models}, the module's), the
     * origins of its classes and its request-id findings. {@code classes} are the module's classes
     * by internal name, as the sandbox left them; {@code idUses} what {@link RequestIdUse} found in
     * them (each finding is in one class, so in one package).
     */
    static Map<String, Built> keepable(Collection<String> packages, Map<String, byte[]> classes, Collection<Model> models,
                                       List<RequestIdUse.Finding> idUses) {
        Map<String, Map<String, byte[]>> owned = new HashMap<>();
        Map<String, String> ownerByClass = new HashMap<>();
        classes.forEach((name, bytes) -> owner(name, packages).ifPresent(pkg -> {
            owned.computeIfAbsent(pkg, p -> new TreeMap<>()).put(name, bytes);
            ownerByClass.put(name, pkg);
        }));
        Map<String, List<Class<? extends Model>>> modelTypes = new HashMap<>();
        for (Model model : models) {
            modelTypes.computeIfAbsent(model.getPackageName(), p -> new ArrayList<>()).add(model.getClass());
        }
        // What was compiled must be what the text was read as: the same packages, and no rule class outside them.
        boolean asRead = modelTypes.keySet().equals(Set.copyOf(packages)) && classes.keySet().stream()
                .allMatch(name -> ownerByClass.containsKey(name) || name.startsWith(PROJECT_MODEL_FOLDER));
        if (!asRead) {
            return Map.of();
        }
        Map<String, Built> keepable = new LinkedHashMap<>();
        for (String pkg : packages) {
            Map<String, byte[]> own = owned.getOrDefault(pkg, Map.of());
            if (own.isEmpty() || !modelTypes.containsKey(pkg) || !selfContained(pkg, own, classes.keySet(), ownerByClass)) {
                continue;
            }
            List<RequestIdUse.Finding> ownIdUses = idUses.stream().filter(f -> own.containsKey(f.className())).toList();
            keepable.put(pkg, new Built(pkg, modelTypes.get(pkg), RuleOrigins.of(own), own.keySet(), ownIdUses));
        }
        return keepable;
    }

    /** The rule package a generated class belongs to: the longest whose folder holds it (lambdas sit in sub-folders). */
    private static Optional<String> owner(String internalName, Collection<String> packages) {
        String best = null;
        for (String pkg : packages) {
            if (!pkg.isEmpty() && internalName.startsWith(pkg.replace('.', '/') + "/") && (best == null || pkg.length() > best.length())) {
                best = pkg;
            }
        }
        return Optional.ofNullable(best);
    }

    /** True when no class of {@code own} names a generated class other than the package's own. */
    private static boolean selfContained(String pkg, Map<String, byte[]> own, Set<String> generated, Map<String, String> ownerByClass) {
        for (byte[] bytes : own.values()) {
            ClassReader reader = new ClassReader(bytes);
            for (int item = 1; item < reader.getItemCount(); item++) {
                int offset = reader.getItem(item);
                if (offset == 0 || reader.readByte(offset - 1) != UTF8) {
                    continue; // the second slot of a long or double, or not a string
                }
                // Every name and descriptor of the class is one of these strings, in the class file's modified UTF-8.
                Matcher names = INTERNAL_NAME.matcher(modifiedUtf8(bytes, offset, reader.readUnsignedShort(offset)));
                while (names.find()) {
                    String name = names.group();
                    // In a descriptor a class name follows an L: "La/b/C;" names a/b/C (and a class La/b/C is possible too).
                    if (foreign(name, pkg, generated, ownerByClass)
                            || name.startsWith("L") && foreign(name.substring(1), pkg, generated, ownerByClass)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static String modifiedUtf8(byte[] bytes, int offset, int length) {
        try {
            return new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes, offset, length + 2)).readUTF();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("a malformed constant in a generated class", e);
        }
    }

    private static boolean foreign(String name, String pkg, Set<String> generated, Map<String, String> ownerByClass) {
        return generated.contains(name) && !pkg.equals(ownerByClass.get(name));
    }

    /** The content key of a package: its name, then each file's path and text, each field prefixed with its length. */
    static String key(String pkg, Map<String, String> files) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            field(sha, pkg);
            // The files in their own order: it is the order a module builds them in, hence the rules' load order.
            files.forEach((path, text) -> {
                field(sha, path);
                field(sha, text);
            });
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A field of a key, its length first, so no text can run into the next field (a path or text may hold any character). */
    static void field(MessageDigest sha, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        sha.update(java.nio.ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
        sha.update(bytes);
    }
}
