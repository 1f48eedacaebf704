package io.gpupool.policy.sandbox;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What compiled rule code may reference, member by member. Rules may reach the policy facts
 * (instance methods of {@code io.gpupool.policy.fact.*Fact}), the decision API ({@code Decisions}'
 * recording methods and the decision records' accessors), strings, math and boxing from
 * {@code java.lang}, collections and functional interfaces from {@code java.util}, and
 * {@code java.time} without a clock. The executable model's own scaffolding adds the rule-model
 * builders it calls ({@code org.drools.model}, {@code D}, {@code EvaluationUtil}, accumulate
 * function constructors) and four engine calls a consequence needs (insert, insertLogical, update,
 * delete). Everything else is refused, whatever the spelling: the check runs on the bytecode the
 * compiler produced, where names are resolved.
 *
 * <p>Members that are on an allowed class but could still escape the budget or the determinism of a
 * decision are left out on purpose: regular expressions (catastrophic backtracking runs in JDK code,
 * where no budget tick reaches), capacity arguments and {@code String.repeat} (one call could
 * allocate gigabytes before any tick), streams (parallel streams start threads), randomness and
 * clocks (a dry-run or replay must decide the same as enforcement did), system properties.
 */
final class RuleClassAllowlist {
    /** How a reference is used: a member reference also says whether it is static. */
    enum Use { CALL_STATIC, CALL_INSTANCE, CONSTRUCT, GET_STATIC, GET_FIELD, PUT_STATIC, PUT_FIELD, TYPE_CONSTANT }

    private record Members(boolean all, Set<String> listed, boolean instanceOnly) {
        static Members every() {
            return new Members(true, Set.of(), false);
        }

        static Members except(String... denied) {
            return new Members(true, Set.of(denied), false);
        }

        static Members only(String... allowed) {
            return new Members(false, Set.of(allowed), false);
        }

        /** Instance methods and fields, and static constants (enum values): data, never a factory. */
        static Members instanceMethods() {
            return new Members(true, Set.of(), true);
        }

        boolean allows(String name, String descriptor, Use use) {
            if (use == Use.TYPE_CONSTANT) {
                return true;
            }
            if (instanceOnly && use != Use.CALL_INSTANCE && use != Use.GET_FIELD && use != Use.GET_STATIC) {
                return false;
            }
            boolean named = listed.contains(name) || listed.contains(name + descriptor);
            return all != named;
        }
    }

    private static final String[] COLLECTION_EXCLUDED = {"<init>(I)V", "<init>(IF)V", "<init>(IFZ)V",
            "ensureCapacity", "stream", "parallelStream"};
    private static final Map<String, Members> CLASSES = classes();
    /** Classes inside allowed packages that are not data: a clock, and lambda introspection (which reads class files). */
    private static final Set<String> DENIED = Set.of("java/time/Clock", "java/time/InstantSource",
            "org/drools/model/functions/LambdaPrinter", "org/drools/model/functions/IntrospectableLambda");
    private static final List<Map.Entry<String, Members>> PACKAGES = List.of(
            Map.entry("java/util/function/", Members.every()),
            Map.entry("java/time/temporal/", Members.except("now")),
            Map.entry("java/time/format/", Members.except("now")),
            Map.entry("java/time/chrono/", Members.except("now", "dateNow")),
            Map.entry("org/drools/model/", Members.every()),
            Map.entry("org/kie/api/builder/model/", Members.every()),
            Map.entry("org/kie/api/conf/", Members.every()),
            Map.entry("org/drools/core/base/accumulators/", Members.only("<init>")));
    /** Interfaces a generated class may implement; its superclass must be Object, Enum or another generated class. */
    private static final List<String> IMPLEMENTABLE = List.of("java/io/Serializable", "java/lang/Comparable",
            "java/util/Comparator", "java/util/function/", "org/drools/model/", "org/drools/base/factmodel/AccessibleFact",
            "org/drools/base/factmodel/GeneratedFact", "org/kie/api/runtime/rule/AccumulateFunction",
            "org/drools/modelcompiler/CanonicalKieModuleModel");
    private static final Set<String> BOOTSTRAPS = Set.of("java/lang/invoke/LambdaMetafactory.metafactory",
            "java/lang/invoke/LambdaMetafactory.altMetafactory", "java/lang/invoke/StringConcatFactory.makeConcatWithConstants",
            "java/lang/invoke/StringConcatFactory.makeConcat");
    private static final Set<String> CATCHABLE_NEVER = Set.of("java/lang/Throwable", "java/lang/Error",
            "java/lang/VirtualMachineError", "java/lang/StackOverflowError", "java/lang/OutOfMemoryError",
            "java/lang/LinkageError", RuleBudget.Exceeded.class.getName().replace('.', '/'));

    private RuleClassAllowlist() {
    }

    /** Empty when rule code may use {@code owner.name descriptor} this way; otherwise why not. */
    static Optional<String> refuse(String owner, String name, String descriptor, Use use) {
        if (owner.startsWith("[")) {
            return name.equals("clone") || use == Use.TYPE_CONSTANT ? Optional.empty() : Optional.of(category(owner));
        }
        Members members = membersOf(owner);
        if (members != null && members.allows(name, descriptor, use)) {
            return Optional.empty();
        }
        return Optional.of(category(owner + "." + name));
    }

    static boolean implementable(String type) {
        return IMPLEMENTABLE.stream().anyMatch(p -> p.endsWith("/") ? type.startsWith(p) : type.equals(p));
    }

    static boolean bootstrap(String owner, String name) {
        return BOOTSTRAPS.contains(owner + "." + name);
    }

    static boolean neverCaught(String type) {
        return type == null || CATCHABLE_NEVER.contains(type);
    }

    private static Members membersOf(String owner) {
        if (DENIED.contains(owner)) {
            return null;
        }
        Members exact = CLASSES.get(owner);
        if (exact != null) {
            return exact;
        }
        if (owner.startsWith("io/gpupool/policy/fact/") && owner.endsWith("Fact") && owner.indexOf('$') < 0) {
            return Members.instanceMethods();
        }
        if (owner.startsWith("io/gpupool/policy/decision/") && !owner.endsWith("/Decisions")) {
            return Members.instanceMethods();
        }
        if (owner.startsWith("java/time/") && owner.lastIndexOf('/') == "java/time/".length() - 1) {
            return Members.except("now", "systemDefault");
        }
        for (Map.Entry<String, Members> p : PACKAGES) {
            if (owner.startsWith(p.getKey())) {
                return p.getValue();
            }
        }
        return null;
    }

    /** A sentence for the refusal, by what the reference would reach. */
    static String category(String reference) {
        String r = reference;
        // "java/lang/Class." and not "java/lang/Class": ClassLoader and ClassValue are not reflection.
        if (r.startsWith("java/lang/reflect/") || r.startsWith("java/lang/Class.") || r.startsWith("java/lang/invoke/")
                || r.endsWith(".getClass")) {
            return "reflection and method handles are not reachable from rules";
        }
        if (r.startsWith("java/lang/ClassLoader") || r.startsWith("java/lang/Module") || r.startsWith("java/util/ServiceLoader")
                || r.startsWith("java/util/ResourceBundle") || r.startsWith("java/lang/ModuleLayer")) {
            return "class loading is not reachable from rules";
        }
        if (r.startsWith("java/lang/Thread") || r.startsWith("java/util/concurrent/") || r.startsWith("java/util/Timer")
                || r.startsWith("java/lang/Object.wait") || r.startsWith("java/lang/Object.notify")
                || r.endsWith(".parallelStream") || r.startsWith("java/util/stream/") || r.endsWith(".stream")) {
            return "threads (and streams, which may start them) are not reachable from rules";
        }
        if (r.startsWith("java/io/Object") || r.startsWith("java/io/Externalizable")) {
            return "serialization is not reachable from rules";
        }
        if (r.startsWith("java/io/") || r.startsWith("java/nio/") || r.startsWith("java/util/zip/") || r.startsWith("java/util/jar/")
                || r.startsWith("java/util/Scanner") || r.startsWith("java/util/Properties")) {
            return "files and I/O are not reachable from rules";
        }
        if (r.startsWith("java/net/") || r.startsWith("javax/net/") || r.startsWith("java/net/http/")) {
            return "the network is not reachable from rules";
        }
        if (r.startsWith("java/lang/Process") || r.startsWith("java/lang/ProcessBuilder") || r.startsWith("java/lang/ProcessHandle")) {
            return "processes are not reachable from rules";
        }
        if (r.startsWith("java/lang/System") || r.startsWith("java/lang/Runtime") || r.startsWith("java/lang/Shutdown")
                || r.startsWith("java/lang/SecurityManager") || r.contains(".getInteger") || r.contains(".getLong")
                || r.contains(".getBoolean")) {
            return "the JVM (System, Runtime, system properties) is not reachable from rules";
        }
        if (r.startsWith("java/util/logging/") || r.startsWith("org/slf4j/") || r.startsWith("ch/qos/")
                || r.startsWith("org/apache/logging/") || r.startsWith("java/lang/System$Logger")) {
            return "logging handlers are not reachable from rules";
        }
        if (r.startsWith("javax/naming/")) {
            return "JNDI is not reachable from rules";
        }
        if (r.startsWith("javax/script/") || r.startsWith("org/mvel2/") || r.startsWith("jdk/")) {
            return "scripting engines are not reachable from rules";
        }
        if (r.startsWith("java/util/regex/") || r.endsWith(".matches") || r.endsWith(".replaceAll") || r.endsWith(".replaceFirst")
                || r.endsWith(".split")) {
            return "regular expressions are not available to rules (their backtracking cannot be bounded)";
        }
        if (r.endsWith(".now") || r.startsWith("java/time/Clock") || r.endsWith(".systemDefault") || r.contains("Random")
                || r.endsWith(".random") || r.endsWith(".shuffle") || r.startsWith("java/util/UUID")) {
            return "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)";
        }
        // Before the capacity check, whose ".<init>" would otherwise explain a fact or an engine object
        // made by rule code as an allocation risk.
        if (r.startsWith("org/drools/") || r.startsWith("org/kie/")) {
            return "the rule engine's internals are not reachable from rules";
        }
        if (r.startsWith("io/gpupool/")) {
            return "only the policy facts and the decision API are reachable from rules";
        }
        if (r.endsWith(".repeat") || r.endsWith(".nCopies") || r.endsWith(".<init>") || r.endsWith(".ensureCapacity")
                || r.endsWith(".setLength") || r.contains(".copyOf")) {
            return r + " is not available to rules (a capacity or size argument could allocate unbounded memory)";
        }
        return "it is not on the rules' allowlist (the fact model, the decision API, java.lang strings, math and boxing, "
                + "java.util collections, java.time)";
    }

    private static Map<String, Members> classes() {
        Map<String, Members> c = new java.util.HashMap<>();
        c.put("java/lang/Object", Members.only("<init>", "equals", "hashCode", "toString"));
        c.put("java/lang/String", Members.except("matches", "replaceAll", "replaceFirst", "split", "repeat", "intern",
                "getBytes", "<init>([BLjava/lang/String;)V"));
        c.put("java/lang/StringBuilder", Members.except("<init>(I)V", "ensureCapacity", "setLength"));
        c.put("java/lang/CharSequence", Members.every());
        c.put("java/lang/Math", Members.except("random"));
        c.put("java/lang/StrictMath", Members.except("random"));
        for (String boxed : List.of("Integer", "Long", "Short", "Byte", "Boolean", "Character", "Double", "Float", "Number")) {
            c.put("java/lang/" + boxed, Members.except("getInteger", "getLong", "getBoolean"));
        }
        c.put("java/lang/Comparable", Members.every());
        c.put("java/lang/Iterable", Members.except("spliterator"));
        c.put("java/lang/Enum", Members.except("getDeclaringClass", "describeConstable"));
        c.put("java/lang/Record", Members.every());
        c.put("java/lang/System", Members.only("arraycopy"));
        c.put("java/lang/Throwable", Members.only("getMessage", "getLocalizedMessage", "toString", "getCause"));
        for (String exception : List.of("Exception", "RuntimeException", "IllegalArgumentException", "IllegalStateException",
                "ArithmeticException", "NullPointerException", "UnsupportedOperationException", "IndexOutOfBoundsException",
                "NumberFormatException", "ClassCastException")) {
            c.put("java/lang/" + exception, Members.only("<init>", "getMessage", "getLocalizedMessage", "toString", "getCause"));
        }
        c.put("java/lang/invoke/SerializedLambda", Members.only("getFunctionalInterfaceClass", "getFunctionalInterfaceMethodName",
                "getFunctionalInterfaceMethodSignature", "getImplClass", "getImplMethodKind", "getImplMethodName",
                "getImplMethodSignature", "getCapturedArg", "getCapturedArgCount"));
        for (String collection : List.of("ArrayList", "LinkedList", "HashMap", "LinkedHashMap", "TreeMap", "HashSet",
                "LinkedHashSet", "TreeSet", "ArrayDeque", "PriorityQueue", "List", "Map", "Map$Entry", "Set", "SortedMap",
                "NavigableMap", "SortedSet", "NavigableSet", "Collection", "Queue", "Deque", "Iterator", "ListIterator",
                "AbstractMap$SimpleEntry", "AbstractMap$SimpleImmutableEntry", "AbstractList", "AbstractCollection", "AbstractMap",
                "AbstractSet", "StringJoiner", "Optional", "OptionalInt", "OptionalLong", "OptionalDouble", "Comparator",
                "Objects", "IntSummaryStatistics", "LongSummaryStatistics", "DoubleSummaryStatistics")) {
            c.put("java/util/" + collection, Members.except(COLLECTION_EXCLUDED));
        }
        c.put("java/util/Collections", Members.except("nCopies", "shuffle", "stream", "parallelStream"));
        c.put("java/util/Arrays", Members.except("copyOf", "copyOfRange", "stream", "parallelSort", "parallelPrefix",
                "parallelSetAll", "spliterator"));
        c.put("java/util/Locale", Members.except("setDefault", "getDefault", "<init>"));
        // The executable model's scaffolding: rule-model builders, comparison helpers, and what a consequence needs.
        c.put("org/drools/modelcompiler/dsl/pattern/D", Members.every());
        c.put("org/drools/modelcompiler/util/EvaluationUtil", Members.every());
        c.put("org/drools/modelcompiler/consequence/DroolsImpl", Members.only("asKnowledgeHelper", "insert", "insertLogical",
                "update", "delete"));
        c.put("org/drools/core/rule/consequence/KnowledgeHelper", Members.only("insert", "insertLogical", "update", "delete"));
        c.put("org/drools/model/Drools", Members.only("insert", "insertLogical", "update", "delete"));
        c.put("org/drools/util/DateUtils", Members.only("getDateFormatMask"));
        c.put("org/kie/api/KieServices", Members.only("get", "newKieModuleModel"));
        c.put("org/kie/api/runtime/conf/ClockTypeOption", Members.only("get"));
        c.put("org/kie/util/maven/support/ReleaseIdImpl", Members.only("<init>"));
        c.put("org/kie/api/runtime/rule/AccumulateFunction", Members.every());
        c.put("org/drools/base/factmodel/AccessibleFact", Members.every());
        c.put("org/drools/base/factmodel/GeneratedFact", Members.every());
        c.put("io/gpupool/policy/decision/Decisions", Members.only("tier", "label", "admit", "admitTo", "reject", "priority",
                "quota", "modelQuota", "preempt", "reclaim", "requireApproval"));
        c.put("io/gpupool/domain/tenancy/PoolTier", Members.instanceMethods());
        return Map.copyOf(c);
    }
}
