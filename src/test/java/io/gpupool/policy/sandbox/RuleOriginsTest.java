package io.gpupool.policy.sandbox;

import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Maps generated classes and methods back to the rule, query or function of the author's text, read
 * from the rule-building methods as the executable model writes them: {@code D.rule(package, name)}
 * then references to the lambda classes the rule uses. The classes here are written with ASM in that
 * shape (only their references matter, they are never loaded), so each mapping is shown alone.
 */
class RuleOriginsTest {
    private static final String PKG = "io/gpupool/rules/reclamation/";
    private static final String RULES = PKG + "RulesA1B2";
    private static final String RULE_METHODS = PKG + "RulesA1B2RuleMethods0";
    private static final String IDLE_LAMBDA = PKG + "LambdaPredicate1F";
    private static final String STALE_LAMBDA = PKG + "LambdaConsequence2E";
    private static final String SHARED_LAMBDA = PKG + "LambdaExtractor3D";
    private static final String QUERY_LAMBDA = PKG + "LambdaPredicate4C";
    private static final String HANDLE_LAMBDA = PKG + "LambdaFunction6A";
    private static final String POOL_QUERY_LAMBDA = PKG + "LambdaPredicate7F";
    private static final String QUERY_METHODS = PKG + "RulesA1B2QueryMethods";
    private static final String D = "org/drools/modelcompiler/dsl/pattern/D";
    private static final Handle METAFACTORY = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/invoke/LambdaMetafactory",
            "metafactory", "()V", false);

    private static byte[] type(String name, Consumer<ClassWriter> methods) {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, name, null, "java/lang/Object", null);
        methods.accept(writer);
        writer.visitEnd();
        return writer.toByteArray();
    }

    private static void method(ClassWriter writer, int access, String name, Consumer<MethodVisitor> body) {
        MethodVisitor m = writer.visitMethod(access, name, "()V", null, null);
        m.visitCode();
        body.accept(m);
        m.visitInsn(Opcodes.RETURN);
        m.visitMaxs(4, 4);
        m.visitEnd();
    }

    /** {@code D.rule("io.gpupool.rules.reclamation", name)}, as a rule-building method starts. */
    private static void declareRule(MethodVisitor m, String name) {
        m.visitLdcInsn("io.gpupool.rules.reclamation");
        m.visitLdcInsn(name);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, D, "rule", "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/Object;", false);
        m.visitInsn(Opcodes.POP);
    }

    private static Map<String, byte[]> generated() {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        classes.put(RULES, type(RULES, w -> {
            method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "isLongIdle", m -> { });
            method(w, Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC, "helper", m -> { });
            method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "<clinit>", m -> { });
            method(w, Opcodes.ACC_PUBLIC, "query_idleLeases", m -> {
                m.visitLdcInsn("io.gpupool.rules.reclamation");
                m.visitLdcInsn("idleLeases");
                m.visitMethodInsn(Opcodes.INVOKESTATIC, D, "query", "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/Object;", false);
                m.visitInsn(Opcodes.POP);
                m.visitFieldInsn(Opcodes.GETSTATIC, QUERY_LAMBDA, "INSTANCE", "L" + QUERY_LAMBDA + ";");
                m.visitInsn(Opcodes.POP);
            });
        }));
        classes.put(QUERY_METHODS, type(QUERY_METHODS, w -> method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC,
                "buildQueries", m -> {
                    m.visitLdcInsn("io.gpupool.rules.reclamation");
                    m.visitLdcInsn("leasesOfAPool");
                    m.visitMethodInsn(Opcodes.INVOKESTATIC, D, "query", "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/Object;",
                            false);
                    m.visitInsn(Opcodes.POP);
                    m.visitTypeInsn(Opcodes.NEW, POOL_QUERY_LAMBDA);
                    m.visitInsn(Opcodes.POP);
                })));
        classes.put(RULE_METHODS, type(RULE_METHODS, w -> {
            method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "rule_Idle", m -> {
                declareRule(m, "Idle for an hour is reclaimed");
                m.visitTypeInsn(Opcodes.NEW, IDLE_LAMBDA);
                m.visitInsn(Opcodes.POP);
                m.visitLdcInsn(Type.getObjectType(SHARED_LAMBDA));
                m.visitInsn(Opcodes.POP);
                m.visitInvokeDynamicInsn("test", "()Ljava/util/function/Predicate;", METAFACTORY,
                        Type.getType("()Z"), new Handle(Opcodes.H_INVOKESTATIC, RULE_METHODS, "lambda$rule_Idle$0", "()Z", false),
                        Type.getType("()Z"));
                m.visitInsn(Opcodes.POP);
                m.visitInvokeDynamicInsn("apply", "()Ljava/util/function/Function;", METAFACTORY,
                        new Handle(Opcodes.H_INVOKESTATIC, HANDLE_LAMBDA, "apply", "()V", false));
                m.visitInsn(Opcodes.POP);
            });
            method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "rule_Stale", m -> {
                declareRule(m, "Stale heartbeat is reclaimed");
                m.visitMethodInsn(Opcodes.INVOKESTATIC, STALE_LAMBDA, "of", "()V", false);
                m.visitFieldInsn(Opcodes.GETSTATIC, SHARED_LAMBDA, "INSTANCE", "L" + SHARED_LAMBDA + ";");
                m.visitInsn(Opcodes.POP);
            });
            method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "notARule", m -> {
                m.visitTypeInsn(Opcodes.NEW, PKG + "LambdaUnclaimed5B");
                m.visitInsn(Opcodes.POP);
            });
        }));
        for (String lambda : List.of(IDLE_LAMBDA, STALE_LAMBDA, SHARED_LAMBDA, QUERY_LAMBDA, PKG + "LambdaUnclaimed5B",
                HANDLE_LAMBDA, POOL_QUERY_LAMBDA)) {
            classes.put(lambda, type(lambda, w -> { }));
        }
        return classes;
    }

    // Built per test, not once per class: a mutation tester swaps RuleOrigins' code between tests.
    private final RuleOrigins origins = RuleOrigins.of(generated());

    @Test
    void aLambdaClassComesFromTheRuleWhoseBuildingMethodUsesIt() {
        assertThat(origins.of(IDLE_LAMBDA, "test")).containsExactly("rule \"Idle for an hour is reclaimed\"");
        assertThat(origins.of(STALE_LAMBDA, "execute")).containsExactly("rule \"Stale heartbeat is reclaimed\"");
    }

    @Test
    void aLambdaClassSharedByTwoRulesNamesBothInOrder() {
        assertThat(origins.of(SHARED_LAMBDA, "apply"))
                .containsExactly("rule \"Idle for an hour is reclaimed\"", "rule \"Stale heartbeat is reclaimed\"");
    }

    @Test
    void aNestedClassOfALambdaClassComesFromTheSameRule() {
        assertThat(origins.of(IDLE_LAMBDA + "$1", "test")).containsExactly("rule \"Idle for an hour is reclaimed\"");
    }

    @Test
    void aLambdaClassReachedOnlyThroughAMethodHandleComesFromTheRuleThatMakesTheHandle() {
        assertThat(origins.of(HANDLE_LAMBDA, "apply")).containsExactly("rule \"Idle for an hour is reclaimed\"");
    }

    @Test
    void aQueryBuiltOutsideAQueryMethodIsNamedByTheNameItIsGiven() {
        assertThat(origins.of(POOL_QUERY_LAMBDA, "test")).containsExactly("query leasesOfAPool");
    }

    @Test
    void aQueryIsNamedByItsMethod() {
        assertThat(origins.of(QUERY_LAMBDA, "test")).containsExactly("query idleLeases");
        assertThat(origins.of(RULES, "query_idleLeases")).containsExactly("query idleLeases");
    }

    @Test
    void aPublicStaticMethodOfTheRulesClassIsAFunctionButNotOneOfItsRuleMethodsClasses() {
        assertThat(origins.of(RULES, "isLongIdle")).containsExactly("function isLongIdle");
        assertThat(origins.of(RULES, "helper")).isEmpty();
        assertThat(origins.of(RULES, "<clinit>")).isEmpty();
        assertThat(origins.of(RULE_METHODS, "notARule")).isEmpty();
    }

    @Test
    void theRuleBuildingMethodAndItsOwnLambdasComeFromTheirRule() {
        assertThat(origins.of(RULE_METHODS, "rule_Idle")).containsExactly("rule \"Idle for an hour is reclaimed\"");
        assertThat(origins.of(RULE_METHODS, "lambda$rule_Idle$0")).containsExactly("rule \"Idle for an hour is reclaimed\"");
        assertThat(origins.of(RULE_METHODS, "rule_Stale")).containsExactly("rule \"Stale heartbeat is reclaimed\"");
    }

    @Test
    void aClassNoRuleUsesHasNoOrigin() {
        assertThat(origins.of(PKG + "LambdaUnclaimed5B", "test")).isEmpty();
        assertThat(origins.of("java/lang/String", "length")).isEmpty();
    }

    @Test
    void onlyClassesNamedRulesAreReadForOrigins() {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        String builder = PKG + "BuilderA1";
        classes.put(builder, type(builder, w -> method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "rule_X", m -> {
            declareRule(m, "Never read");
            m.visitTypeInsn(Opcodes.NEW, IDLE_LAMBDA);
            m.visitInsn(Opcodes.POP);
        })));
        classes.put(IDLE_LAMBDA, type(IDLE_LAMBDA, w -> { }));

        RuleOrigins origins = RuleOrigins.of(classes);

        assertThat(origins.of(IDLE_LAMBDA, "test")).isEmpty();
        assertThat(origins.of(builder, "rule_X")).isEmpty();
    }

    @Test
    void aStackTraceIsAttributedToItsInnermostGeneratedFrameWithAnOrigin() {
        StackTraceElement[] trace = {
                new StackTraceElement("java.util.ArrayList", "add", null, 1),
                new StackTraceElement(PKG.replace('/', '.') + "LambdaUnclaimed5B", "test", null, 1),
                new StackTraceElement(STALE_LAMBDA.replace('/', '.'), "execute", null, 1),
                new StackTraceElement(IDLE_LAMBDA.replace('/', '.'), "test", null, 1)};
        Set<String> generated = generated().keySet();

        assertThat(origins.of(trace, generated)).containsExactly("rule \"Stale heartbeat is reclaimed\"");
    }

    @Test
    void aStackTraceThroughNoGeneratedClassHasNoOrigin() {
        StackTraceElement[] trace = {
                new StackTraceElement(STALE_LAMBDA.replace('/', '.'), "execute", null, 1),
                new StackTraceElement("org.drools.core.Agenda", "fire", null, 1)};

        assertThat(origins.of(trace, Set.of(IDLE_LAMBDA))).isEmpty();
        assertThat(origins.of(new StackTraceElement[0], generated().keySet())).isEmpty();
    }
}
