package io.gpupool.policy.sandbox;

import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Rule sets written to escape the sandbox or exhaust the service, each as a policy author could
 * upload it. Every one is refused when it is validated: either the sandbox refuses its compiled
 * classes before any of them is loaded (SANDBOX, naming the rule and what it reached for), or its
 * evaluation on the policy tests' fixtures is stopped by the budget (EVALUATION, naming the rule).
 * None writes the marker file any of them aims at, and the default rule set still validates
 * afterwards in the same JVM.
 */
class HostileRulesTest {
    private static final Path MARK = Path.of(System.getProperty("java.io.tmpdir"), "gpupool-hostile-" + ProcessHandle.current().pid());
    private static final String M = MARK.toString();
    /** Short limits so runaway cases are stopped quickly; enforcement uses the same code with 10 s. */
    private static final PolicyValidator VALIDATOR = new PolicyValidator(
            new PolicyEngine(new EvaluationLimits(10_000, 20, Duration.ofMillis(400))));
    /**
     * For the cases another limit must stop (firings, memory, array size): a time budget they cannot
     * reach first, even on a loaded machine, so each case shows its own limit at work.
     */
    private static final PolicyValidator PATIENT_VALIDATOR = new PolicyValidator(
            new PolicyEngine(new EvaluationLimits(10_000, 20, Duration.ofSeconds(60))));

    static Stream<Arguments> hostileRuleSets() {
        return Stream.of(
                // The JVM and the OS
                refused("System.exit in a consequence", consequence("System.exit(1);"), "java.lang.System.exit", "the JVM"),
                refused("Runtime.exec in a consequence", consequence("Runtime.getRuntime().exec(\"touch " + M + "\");"),
                        "java.lang.Runtime.getRuntime", "the JVM"),
                refused("a process started by ProcessBuilder", consequence("new ProcessBuilder(\"touch\", \"" + M + "\").start();"),
                        "java.lang.ProcessBuilder", "processes"),
                refused("a system property read inside a function", file("""
                        function String home() { return System.getProperty("user.home"); }
                        rule "Home" when eval( home() != null ) then end
                        """), "function home uses java.lang.System.getProperty", "the JVM"),
                refused("Runtime reached through a method reference", consequence(
                        "java.util.function.Supplier<Runtime> s = Runtime::getRuntime; s.get();"), "java.lang.Runtime.getRuntime", "the JVM"),
                // Files, logging, serialization
                refused("a file written with java.nio", consequence("java.nio.file.Files.writeString(java.nio.file.Path.of(\"" + M + "\"), \"x\");"),
                        "java.nio.file", "I/O"),
                refused("a file written with java.io", consequence("new java.io.FileOutputStream(\"" + M + "\").close();"),
                        "java.io.FileOutputStream", "I/O"),
                refused("a logging FileHandler", consequence("new java.util.logging.FileHandler(\"" + M + "\");"),
                        "java.util.logging.FileHandler", "logging"),
                refused("an ObjectOutputStream", consequence("new java.io.ObjectOutputStream(new java.io.ByteArrayOutputStream());"),
                        "java.io.ObjectOutputStream", "serialization"),
                refused("a global of a file type used in a consequence", """
                        package io.gpupool.rules.hostile;
                        global java.io.File home;
                        rule "Delete home" when eval( true ) then home.delete(); end
                        """, "java.io.File.delete", "I/O"),
                // Reflection and class loading, with obfuscated names
                refused("MethodHandles with a concatenated class name", consequence(
                        "java.lang.invoke.MethodHandles.publicLookup().findClass(\"java.lang.Sys\" + \"tem\");"),
                        "java.lang.invoke.MethodHandles", "reflection"),
                refused("Class.forName of a reversed string", consequence(
                        "Class.forName(new StringBuilder(\"emitnuR.gnal.avaj\").reverse().toString());"), "java.lang.Class.forName", "reflection"),
                refused("a class loader reached through getClass", consequence("\"x\".getClass().getClassLoader();"),
                        "java.lang.Object.getClass", "reflection"),
                // Threads, network, JNDI, scripting
                refused("a thread started in a consequence", consequence("new Thread(() -> {}).start();"), "java.lang.Thread", "threads"),
                refused("an executor", consequence("java.util.concurrent.Executors.newSingleThreadExecutor();"),
                        "java.util.concurrent.Executors", "threads"),
                refused("a synchronized block", consequence("synchronized (\"x\") { }"), "synchronized", "threads"),
                refused("a socket", consequence("new java.net.Socket(\"127.0.0.1\", 5432);"), "java.net.Socket", "network"),
                refused("a URL opened", consequence("new java.net.URL(\"http://127.0.0.1:1/\").openStream();"), "java.net.URL", "network"),
                refused("a JNDI lookup", consequence("new javax.naming.InitialContext().lookup(\"ldap://127.0.0.1/x\");"),
                        "javax.naming.InitialContext", "JNDI"),
                refused("a scripting engine", consequence("new javax.script.ScriptEngineManager().getEngineByName(\"js\");"),
                        "javax.script.ScriptEngineManager", "scripting"),
                // Every place code hides in a rule file
                refused("System in an eval", file("rule \"Clock\" when eval( System.currentTimeMillis() > 0 ) then end"),
                        "java.lang.System.currentTimeMillis", "the JVM"),
                refused("System in a pattern constraint", file("""
                        rule "Env" when DeviceFact( System.getenv("HOME") != null ) then end
                        """), "java.lang.System.getenv", "the JVM"),
                refused("System in a from expression", file("""
                        rule "From" when $s : String() from System.getProperty("java.home") then end
                        """), "java.lang.System.getProperty", "the JVM"),
                refused("Runtime in custom accumulate code", file("""
                        rule "Accumulate"
                        when
                            $n : Number() from accumulate( DeviceFact( $m : memoryMib ),
                                init( long t = Runtime.getRuntime().freeMemory(); ), action( t += $m; ), reverse( t -= $m; ), result( t ) )
                        then
                        end
                        """), "java.lang.Runtime.getRuntime", "the JVM"),
                refused("System in a query", file("""
                        query "homes" $d : DeviceFact( System.getenv("HOME") != null ) end
                        rule "Uses the query" when eval( true ) then end
                        """), "java.lang.System.getenv", "the JVM"),
                refused("System.exit in an MVEL-dialect consequence", file("""
                        rule "Mvel exit" dialect "mvel" when eval( true ) then System.exit(0); end
                        """), "java.lang.System.exit", "the JVM"),
                refused("a declared type that extends Timer (whose constructor starts a thread)", file("""
                        import java.util.Timer;
                        declare Evil extends Timer end
                        rule "Start" when eval( true ) then new Evil(); end
                        """), "extends java.util.Timer", "may extend only Object"),
                refused("the default locale changed (global mutable state)", consequence("java.util.Locale.setDefault(java.util.Locale.ROOT);"),
                        "java.util.Locale.setDefault", "allowlist"),
                refused("a decision recorded under another rule's name", consequence("decisions.onRuleFiring(\"Someone else\");"),
                        "io.gpupool.policy.decision.Decisions.onRuleFiring", "decision API"),
                refused("a catch of Throwable that would swallow the budget", consequence(
                        "try { long i = 0; while (i >= 0) { i++; } } catch (Throwable t) { }"), "catch java.lang.Throwable", "swallow"),
                refused("a catastrophic regular expression", consequence(
                        "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\".matches(\"(a+)+$\");"), "java.lang.String.matches", "regular expressions"),
                refused("a gigabyte string from String.repeat", consequence("\"x\".repeat(1_000_000_000);"), "java.lang.String.repeat",
                        "unbounded memory"),
                refused("the wall clock", consequence("java.time.Instant.now();"), "java.time.Instant.now", "clocks"),
                // Runaway evaluation, stopped where it runs
                stopped("an endless loop in a consequence", consequence("long i = 0; while (i >= 0) { i++; if (i == Long.MAX_VALUE) { i = 0; } }"),
                        "rule \"Hostile\" ran longer than"),
                stopped("an exponential recursive function", file("""
                        function long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
                        rule "Fibonacci" when eval( true ) then fib(90); end
                        """), "function fib ran longer than"),
                stopped("unbounded recursion", file("""
                        function long deeper(long n) { return deeper(n + 1) + 1; }
                        rule "Deeper" when eval( true ) then deeper(0); end
                        """), "function deeper recursed too deeply"),
                stopped("nested functions looping in a pattern constraint", file("""
                        function boolean spin(long n) { long i = n; while (i >= n) { i = step(i); } return true; }
                        function long step(long i) { return i == Long.MAX_VALUE ? 0 : i + 1; }
                        rule "Spinning constraint" when DeviceFact( spin(memoryMib) ) then end
                        """), "ran longer than"),
                arguments("a loop in an accumulate action (refused by the compiler: it would need the MVEL runtime)", file("""
                        rule "Accumulate forever"
                        when
                            $n : Number() from accumulate( DeviceFact( $m : memoryMib ),
                                init( long t = 0; ), action( while (t >= 0) { t++; } ), result( t ) )
                        then
                        end
                        """), Stage.COMPILE, "cannot be compiled", "accumulate"),
                arguments("a constant condition that runs away while the rule base is built", file("""
                        function long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
                        rule "Constant" when eval( fib(90) > 0 ) then end
                        """), Stage.EVALUATION, "Building the rule base stopped", "function fib ran longer than"),
                stopped("an endless loop in an MVEL-dialect consequence", file("""
                        rule "Mvel spin" dialect "mvel" when eval( true ) then long i = 0; while (i >= 0) { i = i + 1; } end
                        """), "rule \"Mvel spin\" ran longer than"),
                stopped("an infinite modify loop", file("""
                        declare Counter n : long end
                        rule "Start counting" when eval( true ) then insert(new Counter(0)); end
                        rule "Count forever" when $c : Counter( n >= 0 ) then modify($c) { setN($c.getN() + 1) }; end
                        """), "quiescence"),
                stopped("a huge array", consequence("long[] a = new long[500_000_000];"), "asked for an array of 500000000 elements"),
                stopped("an allocation spree", consequence(
                        "java.util.List<long[]> l = new java.util.ArrayList<>(); while (l.size() >= 0) { l.add(new long[1_000_000]); }"),
                        "rule \"Hostile\" allocated"));
    }

    @ParameterizedTest(name = "{0} is refused by the sandbox")
    @MethodSource("hostileRuleSets")
    void aHostileRuleSetIsRefusedAndWritesNothing(String name, String drl, Stage stage, String where, String why) {
        boolean stoppedByAnotherLimit = stage == Stage.EVALUATION && !why.contains("ran longer than");
        ValidationReport report = (stoppedByAnotherLimit ? PATIENT_VALIDATOR : VALIDATOR)
                .validate(RuleSet.draft(Map.of("hostile/hostile.drl", drl)));

        assertThat(report.valid()).as("refused").isFalse();
        if (stage == Stage.SANDBOX) {
            assertThat(report.policy()).as("never loaded, never handed out").isEmpty();
        }
        assertThat(report.errors()).as(report.errors().toString())
                .anySatisfy(m -> {
                    assertThat(m.stage()).isEqualTo(stage);
                    assertThat(m.text()).contains(where).contains(why);
                    if (stage == Stage.SANDBOX) {
                        assertThat(m.file()).isEqualTo("hostile/hostile.drl");
                        assertThat(m.line()).isPositive();
                    }
                });
        assertThat(MARK).doesNotExist();
    }

    @Test
    void theDefaultRuleSetStillValidatesAfterTheHostileOnes() {
        hostileRuleSets().limit(3).forEach(a -> VALIDATOR.validate(RuleSet.draft(Map.of("h/h.drl", (String) a.get()[1]))));

        ValidationReport report = VALIDATOR.validate(RuleSetFiles.defaultRuleSet());

        assertThat(report.errors()).isEmpty();
        assertThat(report.policy()).isPresent();
    }

    @AfterAll
    static void nothingWasWritten() throws Exception {
        assertThat(Files.exists(MARK)).isFalse();
    }

    private static Arguments refused(String name, String drl, String reference, String reason) {
        return arguments(name, drl, Stage.SANDBOX, reference, reason);
    }

    private static Arguments stopped(String name, String drl, String message) {
        return message.equals("quiescence") ? arguments(name, drl, Stage.EVALUATION, "Did not reach quiescence", "Count forever")
                : arguments(name, drl, Stage.EVALUATION, "Evaluation stopped", message);
    }

    private static String consequence(String code) {
        return file("rule \"Hostile\" when eval( true ) then " + code + " end");
    }

    private static String file(String rules) {
        return "package io.gpupool.rules.hostile;\nimport io.gpupool.policy.fact.DeviceFact;\nglobal io.gpupool.policy.decision.Decisions decisions;\n\n"
                + rules;
    }
}
