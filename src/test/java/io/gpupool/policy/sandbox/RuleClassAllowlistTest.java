package io.gpupool.policy.sandbox;

import io.gpupool.policy.sandbox.RuleClassAllowlist.Use;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What compiled rule code may reference, member by member, and the sentence a refusal gives. These
 * are the references as the bytecode names them (internal names, descriptors), so a spelling trick
 * in the DRL cannot matter; HostileRulesTest shows the same through the compiler end to end.
 */
class RuleClassAllowlistTest {
    static Stream<Arguments> allowed() {
        return Stream.of(
                arguments("a fact's accessor", "io/gpupool/policy/fact/LeaseFact", "idleSeconds", "()J", Use.CALL_INSTANCE),
                arguments("a fact's derived method", "io/gpupool/policy/fact/PoolFact", "canFitNow",
                        "(Lio/gpupool/policy/fact/RequestFact;)Z", Use.CALL_INSTANCE),
                arguments("a decision's accessor", "io/gpupool/policy/decision/AdmissionDecision", "pools",
                        "()Ljava/util/List;", Use.CALL_INSTANCE),
                arguments("an enum constant of the decisions", "io/gpupool/policy/decision/QuotaStatus", "MAY_BORROW",
                        "Lio/gpupool/policy/decision/QuotaStatus;", Use.GET_STATIC),
                arguments("recording a reclaim", "io/gpupool/policy/decision/Decisions", "reclaim",
                        "(Lio/gpupool/policy/fact/LeaseFact;Ljava/lang/String;JLjava/lang/String;Ljava/lang/String;)V",
                        Use.CALL_INSTANCE),
                arguments("string comparison", "java/lang/String", "startsWith", "(Ljava/lang/String;)Z", Use.CALL_INSTANCE),
                arguments("a string built from characters", "java/lang/String", "<init>", "([C)V", Use.CONSTRUCT),
                arguments("math", "java/lang/Math", "max", "(JJ)J", Use.CALL_STATIC),
                arguments("boxing", "java/lang/Long", "valueOf", "(J)Ljava/lang/Long;", Use.CALL_STATIC),
                arguments("a new list without a capacity", "java/util/ArrayList", "<init>", "()V", Use.CONSTRUCT),
                arguments("a list's size", "java/util/List", "size", "()I", Use.CALL_INSTANCE),
                arguments("an object's equality", "java/lang/Object", "equals", "(Ljava/lang/Object;)Z", Use.CALL_INSTANCE),
                arguments("copying an array", "java/lang/System", "arraycopy", "(Ljava/lang/Object;ILjava/lang/Object;II)V",
                        Use.CALL_STATIC),
                arguments("a duration", "java/time/Duration", "ofHours", "(J)Ljava/time/Duration;", Use.CALL_STATIC),
                arguments("a temporal unit", "java/time/temporal/ChronoUnit", "HOURS", "Ljava/time/temporal/ChronoUnit;",
                        Use.GET_STATIC),
                arguments("a functional interface", "java/util/function/Predicate", "test", "(Ljava/lang/Object;)Z",
                        Use.CALL_INSTANCE),
                arguments("a rule-model builder", "org/drools/model/PatternDSL", "pattern", "(Lorg/drools/model/Variable;)"
                        + "Lorg/drools/model/PatternDSL$PatternDef;", Use.CALL_STATIC),
                arguments("an accumulate function's constructor", "org/drools/core/base/accumulators/SumAccumulateFunction",
                        "<init>", "()V", Use.CONSTRUCT),
                arguments("a consequence inserting a fact", "org/drools/model/Drools", "insert", "(Ljava/lang/Object;)V",
                        Use.CALL_INSTANCE),
                arguments("a tier's name", "io/gpupool/domain/tenancy/PoolTier", "name", "()Ljava/lang/String;",
                        Use.CALL_INSTANCE),
                arguments("an array's clone", "[Ljava/lang/String;", "clone", "()Ljava/lang/Object;", Use.CALL_INSTANCE),
                arguments("a class literal of an allowed class whatever its members", "java/lang/Object", "class", "",
                        Use.TYPE_CONSTANT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allowed")
    void ruleCodeMayReach(String caseName, String owner, String name, String descriptor, Use use) {
        assertThat(RuleClassAllowlist.refuse(owner, name, descriptor, use)).isEmpty();
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                arguments("a fact's constructor (facts come from the snapshot)", "io/gpupool/policy/fact/LeaseFact", "<init>",
                        "()V", Use.CONSTRUCT, "only the policy facts and the decision API are reachable from rules"),
                arguments("a fact's static factory", "io/gpupool/policy/fact/RequestFact", "whole",
                        "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;I)Lio/gpupool/policy/fact/RequestFact;",
                        Use.CALL_STATIC, "only the policy facts and the decision API are reachable from rules"),
                arguments("writing a fact's field", "io/gpupool/policy/fact/LeaseFact", "idleSeconds", "J", Use.PUT_FIELD,
                        "only the policy facts and the decision API are reachable from rules"),
                arguments("a nested class of a fact", "io/gpupool/policy/fact/FactReads$Log", "close", "()V",
                        Use.CALL_INSTANCE, "only the policy facts and the decision API are reachable from rules"),
                arguments("a policy class that is no fact", "io/gpupool/policy/fact/SnapshotFacts", "pools",
                        "()Ljava/util/List;", Use.CALL_INSTANCE,
                        "only the policy facts and the decision API are reachable from rules"),
                arguments("the engine's hook on the collector", "io/gpupool/policy/decision/Decisions", "onRuleFiring",
                        "(Ljava/lang/String;)V", Use.CALL_INSTANCE,
                        "only the policy facts and the decision API are reachable from rules"),
                arguments("a service of the application", "io/gpupool/lease/LeaseService", "release", "()V",
                        Use.CALL_INSTANCE, "only the policy facts and the decision API are reachable from rules"),
                arguments("a regular expression on a string", "java/lang/String", "matches", "(Ljava/lang/String;)Z",
                        Use.CALL_INSTANCE, "regular expressions are not available to rules (their backtracking cannot be bounded)"),
                arguments("splitting a string", "java/lang/String", "split", "(Ljava/lang/String;)[Ljava/lang/String;",
                        Use.CALL_INSTANCE, "regular expressions are not available to rules (their backtracking cannot be bounded)"),
                arguments("a pattern", "java/util/regex/Pattern", "compile", "(Ljava/lang/String;)Ljava/util/regex/Pattern;",
                        Use.CALL_STATIC, "regular expressions are not available to rules (their backtracking cannot be bounded)"),
                arguments("repeating a string", "java/lang/String", "repeat", "(I)Ljava/lang/String;", Use.CALL_INSTANCE,
                        "java/lang/String.repeat is not available to rules (a capacity or size argument could allocate unbounded memory)"),
                arguments("a list with a capacity", "java/util/ArrayList", "<init>", "(I)V", Use.CONSTRUCT,
                        "java/util/ArrayList.<init> is not available to rules (a capacity or size argument could allocate unbounded memory)"),
                arguments("a builder with a capacity", "java/lang/StringBuilder", "<init>", "(I)V", Use.CONSTRUCT,
                        "java/lang/StringBuilder.<init> is not available to rules (a capacity or size argument could allocate unbounded memory)"),
                arguments("copying an array to a new length", "java/util/Arrays", "copyOf", "([II)[I", Use.CALL_STATIC,
                        "java/util/Arrays.copyOf is not available to rules (a capacity or size argument could allocate unbounded memory)"),
                arguments("n copies", "java/util/Collections", "nCopies", "(ILjava/lang/Object;)Ljava/util/List;",
                        Use.CALL_STATIC, "java/util/Collections.nCopies is not available to rules (a capacity or size argument could allocate unbounded memory)"),
                arguments("a stream of a list", "java/util/List", "stream", "()Ljava/util/stream/Stream;", Use.CALL_INSTANCE,
                        "threads (and streams, which may start them) are not reachable from rules"),
                arguments("a parallel stream", "java/util/ArrayList", "parallelStream", "()Ljava/util/stream/Stream;",
                        Use.CALL_INSTANCE, "threads (and streams, which may start them) are not reachable from rules"),
                arguments("a class literal of a thread", "java/lang/Thread", "class", "", Use.TYPE_CONSTANT,
                        "threads (and streams, which may start them) are not reachable from rules"),
                arguments("a thread", "java/lang/Thread", "start", "()V", Use.CALL_INSTANCE,
                        "threads (and streams, which may start them) are not reachable from rules"),
                arguments("waiting on a monitor", "java/lang/Object", "wait", "()V", Use.CALL_INSTANCE,
                        "threads (and streams, which may start them) are not reachable from rules"),
                arguments("an executor", "java/util/concurrent/Executors", "newFixedThreadPool",
                        "(I)Ljava/util/concurrent/ExecutorService;", Use.CALL_STATIC,
                        "threads (and streams, which may start them) are not reachable from rules"),
                arguments("the clock of the JVM", "java/lang/System", "currentTimeMillis", "()J", Use.CALL_STATIC,
                        "the JVM (System, Runtime, system properties) is not reachable from rules"),
                arguments("exiting the JVM", "java/lang/Runtime", "exit", "(I)V", Use.CALL_INSTANCE,
                        "the JVM (System, Runtime, system properties) is not reachable from rules"),
                arguments("a system property as a number", "java/lang/Integer", "getInteger",
                        "(Ljava/lang/String;)Ljava/lang/Integer;", Use.CALL_STATIC,
                        "the JVM (System, Runtime, system properties) is not reachable from rules"),
                arguments("reading a file", "java/nio/file/Files", "readString", "(Ljava/nio/file/Path;)Ljava/lang/String;",
                        Use.CALL_STATIC, "files and I/O are not reachable from rules"),
                arguments("printing", "java/io/PrintStream", "println", "(Ljava/lang/String;)V", Use.CALL_INSTANCE,
                        "files and I/O are not reachable from rules"),
                arguments("serialising", "java/io/ObjectOutputStream", "<init>", "(Ljava/io/OutputStream;)V", Use.CONSTRUCT,
                        "serialization is not reachable from rules"),
                arguments("a socket", "java/net/Socket", "<init>", "(Ljava/lang/String;I)V", Use.CONSTRUCT,
                        "the network is not reachable from rules"),
                arguments("a process", "java/lang/ProcessBuilder", "start", "()Ljava/lang/Process;", Use.CALL_INSTANCE,
                        "processes are not reachable from rules"),
                arguments("reflection", "java/lang/reflect/Method", "invoke",
                        "(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;", Use.CALL_INSTANCE,
                        "reflection and method handles are not reachable from rules"),
                arguments("an object's class", "java/lang/Object", "getClass", "()Ljava/lang/Class;", Use.CALL_INSTANCE,
                        "reflection and method handles are not reachable from rules"),
                arguments("a class by name", "java/lang/Class", "forName", "(Ljava/lang/String;)Ljava/lang/Class;",
                        Use.CALL_STATIC, "reflection and method handles are not reachable from rules"),
                arguments("a class loader", "java/lang/ClassLoader", "loadClass", "(Ljava/lang/String;)Ljava/lang/Class;",
                        Use.CALL_INSTANCE, "class loading is not reachable from rules"),
                arguments("a service loader", "java/util/ServiceLoader", "load",
                        "(Ljava/lang/Class;)Ljava/util/ServiceLoader;", Use.CALL_STATIC, "class loading is not reachable from rules"),
                arguments("a logger", "org/slf4j/LoggerFactory", "getLogger", "(Ljava/lang/String;)Lorg/slf4j/Logger;",
                        Use.CALL_STATIC, "logging handlers are not reachable from rules"),
                arguments("JNDI", "javax/naming/InitialContext", "lookup", "(Ljava/lang/String;)Ljava/lang/Object;",
                        Use.CALL_INSTANCE, "JNDI is not reachable from rules"),
                arguments("a script engine", "javax/script/ScriptEngineManager", "<init>", "()V", Use.CONSTRUCT,
                        "scripting engines are not reachable from rules"),
                arguments("MVEL", "org/mvel2/MVEL", "eval", "(Ljava/lang/String;)Ljava/lang/Object;", Use.CALL_STATIC,
                        "scripting engines are not reachable from rules"),
                arguments("the time now", "java/time/Instant", "now", "()Ljava/time/Instant;", Use.CALL_STATIC,
                        "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("the time zone of the machine", "java/time/ZoneId", "systemDefault", "()Ljava/time/ZoneId;",
                        Use.CALL_STATIC, "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("a clock", "java/time/Clock", "systemUTC", "()Ljava/time/Clock;", Use.CALL_STATIC,
                        "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("the date now in a calendar", "java/time/chrono/HijrahDate", "now",
                        "()Ljava/time/chrono/HijrahDate;", Use.CALL_STATIC,
                        "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("a random number", "java/lang/Math", "random", "()D", Use.CALL_STATIC,
                        "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("a random generator", "java/util/Random", "nextInt", "()I", Use.CALL_INSTANCE,
                        "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("a UUID", "java/util/UUID", "randomUUID", "()Ljava/util/UUID;", Use.CALL_STATIC,
                        "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("shuffling", "java/util/Collections", "shuffle", "(Ljava/util/List;)V", Use.CALL_STATIC,
                        "clocks and randomness are not available to rules (use the facts' ages: decisions must replay the same)"),
                arguments("the default locale", "java/util/Locale", "setDefault", "(Ljava/util/Locale;)V", Use.CALL_STATIC,
                        "it is not on the rules' allowlist (the fact model, the decision API, java.lang strings, math and boxing, "
                                + "java.util collections, java.time)"),
                arguments("a fact handle made by rule code", "org/drools/core/common/DefaultFactHandle", "<init>", "()V",
                        Use.CONSTRUCT, "the rule engine's internals are not reachable from rules"),
                arguments("the engine's internals", "org/drools/core/common/InternalAgenda", "halt", "()V",
                        Use.CALL_INSTANCE, "the rule engine's internals are not reachable from rules"),
                arguments("a method of the engine beside the four a consequence needs", "org/drools/model/Drools", "halt",
                        "()V", Use.CALL_INSTANCE, "the rule engine's internals are not reachable from rules"),
                arguments("lambda introspection", "org/drools/model/functions/LambdaPrinter", "print",
                        "(Ljava/lang/Object;)Ljava/lang/String;", Use.CALL_STATIC, "the rule engine's internals are not reachable from rules"),
                arguments("an accumulate function's method", "org/drools/core/base/accumulators/SumAccumulateFunction",
                        "accumulate", "()V", Use.CALL_INSTANCE, "the rule engine's internals are not reachable from rules"),
                arguments("an array's other methods", "[Ljava/lang/String;", "getClass", "()Ljava/lang/Class;",
                        Use.CALL_INSTANCE, "it is not on the rules' allowlist (the fact model, the decision API, java.lang "
                                + "strings, math and boxing, java.util collections, java.time)"),
                arguments("a static field of a fact written", "io/gpupool/policy/decision/QuotaStatus", "MAY_BORROW",
                        "Lio/gpupool/policy/decision/QuotaStatus;", Use.PUT_STATIC,
                        "only the policy facts and the decision API are reachable from rules"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void ruleCodeIsRefused(String caseName, String owner, String name, String descriptor, Use use, String why) {
        assertThat(RuleClassAllowlist.refuse(owner, name, descriptor, use)).contains(why);
    }

    @Test
    void generatedClassesMayImplementDataAndRuleModelInterfacesOnly() {
        assertThat(RuleClassAllowlist.implementable("java/io/Serializable")).isTrue();
        assertThat(RuleClassAllowlist.implementable("java/util/function/Function")).isTrue();
        assertThat(RuleClassAllowlist.implementable("org/drools/model/functions/Block1")).isTrue();
        assertThat(RuleClassAllowlist.implementable("org/drools/base/factmodel/GeneratedFact")).isTrue();
        assertThat(RuleClassAllowlist.implementable("java/lang/Runnable")).isFalse();
        assertThat(RuleClassAllowlist.implementable("java/io/Serializable2")).isFalse();
        assertThat(RuleClassAllowlist.implementable("org/drools/base/factmodel/GeneratedFactX")).isFalse();
        assertThat(RuleClassAllowlist.implementable("java/lang/Thread$UncaughtExceptionHandler")).isFalse();
    }

    @Test
    void onlyLambdaAndStringConcatenationBootstrapsAreAllowed() {
        assertThat(RuleClassAllowlist.bootstrap("java/lang/invoke/LambdaMetafactory", "metafactory")).isTrue();
        assertThat(RuleClassAllowlist.bootstrap("java/lang/invoke/LambdaMetafactory", "altMetafactory")).isTrue();
        assertThat(RuleClassAllowlist.bootstrap("java/lang/invoke/StringConcatFactory", "makeConcatWithConstants")).isTrue();
        assertThat(RuleClassAllowlist.bootstrap("java/lang/runtime/ObjectMethods", "bootstrap")).isFalse();
        assertThat(RuleClassAllowlist.bootstrap("java/lang/invoke/ConstantBootstraps", "invoke")).isFalse();
    }

    @Test
    void ruleCodeMayNotCatchWhatStopsItButMayCatchOrdinaryExceptions() {
        assertThat(RuleClassAllowlist.neverCaught(null)).as("a catch-all (finally)").isTrue();
        assertThat(RuleClassAllowlist.neverCaught("java/lang/Throwable")).isTrue();
        assertThat(RuleClassAllowlist.neverCaught("java/lang/Error")).isTrue();
        assertThat(RuleClassAllowlist.neverCaught("java/lang/StackOverflowError")).isTrue();
        assertThat(RuleClassAllowlist.neverCaught("io/gpupool/policy/sandbox/RuleBudget$Exceeded")).isTrue();
        assertThat(RuleClassAllowlist.neverCaught("java/lang/ArithmeticException")).isFalse();
        assertThat(RuleClassAllowlist.neverCaught("java/lang/RuntimeException")).isFalse();
    }
}
