package io.gpupool.policy.sandbox;

import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sandbox's check of compiled rule classes, instruction by instruction, on classes written with
 * ASM (never loaded): each kind of instruction that can reach beyond the allowlist is refused with
 * the reference as the author would read it, and what rules legitimately do passes. HostileRulesTest
 * shows the same through the DRL compiler, at the cost of a compile per case.
 */
class RuleClassVerifierTest {
    private static final String PKG = "io/gpupool/rules/hostile/";
    private static final String RULE_CLASS = PKG + "LambdaConsequenceA1";
    private static final Handle METAFACTORY = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/invoke/LambdaMetafactory",
            "metafactory", "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;"
            + "Ljava/lang/invoke/MethodType;Ljava/lang/invoke/MethodHandle;Ljava/lang/invoke/MethodType;)"
            + "Ljava/lang/invoke/CallSite;", false);
    private static final String SWALLOW = "rules may not catch Throwable or Error, nor use finally: it could swallow the "
            + "evaluation budget";
    private static final String STATIC_STATE = "static mutable state is not allowed in rules";

    private final RuleClassVerifier verifier = new RuleClassVerifier();

    /** A class of {@code members}, extending {@code superName} and implementing {@code interfaces}. */
    private static byte[] type(String name, String superName, String[] interfaces, Consumer<ClassWriter> members) {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, name, null, superName, interfaces);
        members.accept(writer);
        writer.visitEnd();
        return writer.toByteArray();
    }

    private static byte[] type(String name, Consumer<ClassWriter> members) {
        return type(name, "java/lang/Object", null, members);
    }

    private static void method(ClassWriter writer, int access, String name, Consumer<MethodVisitor> body) {
        MethodVisitor m = writer.visitMethod(access, name, "()V", null, null);
        if ((access & Opcodes.ACC_NATIVE) == 0) {
            m.visitCode();
            body.accept(m);
            m.visitInsn(Opcodes.RETURN);
            m.visitMaxs(8, 8);
        }
        m.visitEnd();
    }

    /** A rule class with one method {@code execute} holding {@code body}. */
    private static Map<String, byte[]> consequence(Consumer<MethodVisitor> body) {
        return Map.of(RULE_CLASS, type(RULE_CLASS, w -> method(w, Opcodes.ACC_PUBLIC, "execute", body)));
    }

    private List<RuleClassViolation> verify(Map<String, byte[]> classes) {
        return verifier.verify(classes);
    }

    private static RuleClassViolation refused(String reference, String reason) {
        return new RuleClassViolation(RULE_CLASS, "execute", reference, reason);
    }

    @Test
    void whatAConsequenceLegitimatelyDoesPasses() {
        List<RuleClassViolation> violations = verify(consequence(m -> {
            m.visitLdcInsn("idle for an hour");
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/String", "length", "()I", false);
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "io/gpupool/policy/fact/LeaseFact", "idleSeconds", "()J", false);
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "io/gpupool/policy/decision/Decisions", "reclaim",
                    "(Lio/gpupool/policy/fact/LeaseFact;Ljava/lang/String;JLjava/lang/String;Ljava/lang/String;)V", false);
            m.visitTypeInsn(Opcodes.NEW, "java/util/ArrayList");
            m.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/util/ArrayList", "<init>", "()V", false);
            m.visitFieldInsn(Opcodes.GETSTATIC, "io/gpupool/policy/decision/QuotaStatus", "MAY_BORROW",
                    "Lio/gpupool/policy/decision/QuotaStatus;");
            m.visitLdcInsn(Type.getType("[Ljava/lang/String;"));
            m.visitLdcInsn(42L);
            Label start = new Label();
            Label end = new Label();
            Label handler = new Label();
            m.visitTryCatchBlock(start, end, handler, "java/lang/ArithmeticException");
            m.visitLabel(start);
            m.visitInsn(Opcodes.NOP);
            m.visitLabel(end);
            m.visitLabel(handler);
        }));

        assertThat(violations).isEmpty();
    }

    @Test
    void aCallBeyondTheAllowlistIsRefusedWithItsSignature() {
        assertThat(verify(consequence(m -> m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "exit", "(I)V", false))))
                .containsExactly(refused("java.lang.System.exit(I)V",
                        "the JVM (System, Runtime, system properties) is not reachable from rules"));
    }

    @Test
    void aConstructorBeyondTheAllowlistIsRefused() {
        assertThat(verify(consequence(m -> m.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Thread", "<init>", "()V",
                false)))).containsExactly(refused("java.lang.Thread.<init>()V",
                "threads (and streams, which may start them) are not reachable from rules"));
    }

    @Test
    void aStaticFieldReadBeyondTheAllowlistIsRefusedWithoutADescriptor() {
        assertThat(verify(consequence(m -> m.visitFieldInsn(Opcodes.GETSTATIC, "java/lang/System", "out",
                "Ljava/io/PrintStream;")))).containsExactly(refused("java.lang.System.out",
                "the JVM (System, Runtime, system properties) is not reachable from rules"));
    }

    @Test
    void writingAFieldOfAnObjectTheRulesDidNotDeclareIsRefused() {
        assertThat(verify(consequence(m -> m.visitFieldInsn(Opcodes.PUTFIELD, "io/gpupool/policy/fact/LeaseFact",
                "idleSeconds", "J")))).containsExactly(refused("io.gpupool.policy.fact.LeaseFact.idleSeconds",
                "rules may not change the fields of objects they did not declare"));
    }

    @Test
    void writingAFieldOfADeclaredTypeIsAllowed() {
        String declared = PKG + "Hot";
        Map<String, byte[]> classes = new LinkedHashMap<>(consequence(m -> m.visitFieldInsn(Opcodes.PUTFIELD, declared,
                "deviceId", "Ljava/lang/String;")));
        classes.put(declared, type(declared, w -> w.visitField(Opcodes.ACC_PRIVATE, "deviceId", "Ljava/lang/String;",
                null, null)));

        assertThat(verify(classes)).isEmpty();
    }

    @Test
    void writingAStaticFieldIsRefusedEvenOnADeclaredTypeOutsideItsInitialiser() {
        String declared = PKG + "Counter";
        Map<String, byte[]> classes = new LinkedHashMap<>();
        classes.put(declared, type(declared, w -> {
            w.visitField(Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "LIMIT", "I", null, null);
            method(w, Opcodes.ACC_STATIC, "<clinit>", m -> m.visitFieldInsn(Opcodes.PUTSTATIC, declared, "LIMIT", "I"));
            method(w, Opcodes.ACC_PUBLIC, "bump", m -> m.visitFieldInsn(Opcodes.PUTSTATIC, declared, "LIMIT", "I"));
            method(w, Opcodes.ACC_PUBLIC, "poison", m -> m.visitFieldInsn(Opcodes.PUTSTATIC, "java/util/Locale", "ROOT",
                    "Ljava/util/Locale;"));
        }));

        assertThat(verify(classes)).containsExactly(
                new RuleClassViolation(declared, "bump", "io.gpupool.rules.hostile.Counter.LIMIT", STATIC_STATE),
                new RuleClassViolation(declared, "poison", "java.util.Locale.ROOT", STATIC_STATE));
    }

    @Test
    void aStaticFieldThatIsNotFinalIsRefusedAndFinalOrInstanceFieldsAreNot() {
        Map<String, byte[]> classes = Map.of(RULE_CLASS, type(RULE_CLASS, w -> {
            w.visitField(Opcodes.ACC_STATIC, "counter", "J", null, null);
            w.visitField(Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "INSTANCE", "L" + RULE_CLASS + ";", null, null);
            w.visitField(Opcodes.ACC_PRIVATE, "seen", "J", null, null);
        }));

        assertThat(verify(classes)).containsExactly(
                new RuleClassViolation(RULE_CLASS, "(field counter)", "static counter", STATIC_STATE));
    }

    @Test
    void aSynchronizedOrNativeMethodAndAMonitorAreRefused() {
        Map<String, byte[]> classes = Map.of(RULE_CLASS, type(RULE_CLASS, w -> {
            method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_SYNCHRONIZED, "locked", m -> { });
            method(w, Opcodes.ACC_PUBLIC | Opcodes.ACC_NATIVE, "peek", m -> { });
            method(w, Opcodes.ACC_PUBLIC, "execute", m -> {
                m.visitInsn(Opcodes.ACONST_NULL);
                m.visitInsn(Opcodes.MONITORENTER);
                m.visitInsn(Opcodes.ACONST_NULL);
                m.visitInsn(Opcodes.MONITOREXIT);
            });
        }));

        assertThat(verify(classes)).containsExactly(
                new RuleClassViolation(RULE_CLASS, "locked", "synchronized locked", "threads and locks are not reachable from rules"),
                new RuleClassViolation(RULE_CLASS, "peek", "native peek", "native code is not reachable from rules"),
                refused("synchronized block", "threads and locks are not reachable from rules"));
    }

    @Test
    void catchingThrowableAnErrorOrTheBudgetOrAFinallyIsRefused() {
        List<RuleClassViolation> violations = verify(consequence(m -> {
            Label start = new Label();
            Label end = new Label();
            Label handler = new Label();
            m.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
            m.visitTryCatchBlock(start, end, handler, "java/lang/StackOverflowError");
            m.visitTryCatchBlock(start, end, handler, "io/gpupool/policy/sandbox/RuleBudget$Exceeded");
            m.visitTryCatchBlock(start, end, handler, null);
            m.visitLabel(start);
            m.visitInsn(Opcodes.NOP);
            m.visitLabel(end);
            m.visitLabel(handler);
        }));

        assertThat(violations).containsExactly(refused("catch java.lang.Throwable", SWALLOW),
                refused("catch java.lang.StackOverflowError", SWALLOW),
                refused("catch io.gpupool.policy.sandbox.RuleBudget$Exceeded", SWALLOW),
                refused("finally or catch-all", SWALLOW));
    }

    @Test
    void aMultiDimensionalArrayIsRefused() {
        assertThat(verify(consequence(m -> m.visitMultiANewArrayInsn("[[J", 2))))
                .containsExactly(refused("new [[J", "multi-dimensional arrays are not available to rules"));
    }

    @Test
    void aClassConstantOfAForbiddenTypeIsRefusedEvenInsideAnArrayType() {
        assertThat(verify(consequence(m -> {
            m.visitLdcInsn(Type.getObjectType("java/lang/Runtime"));
            m.visitLdcInsn(Type.getType("[[Ljava/lang/ProcessBuilder;"));
        }))).containsExactly(
                refused("java.lang.Runtime.class", "the JVM (System, Runtime, system properties) is not reachable from rules"),
                refused("java.lang.ProcessBuilder.class", "processes are not reachable from rules"));
    }

    @Test
    void methodTypesMethodHandlesAndDynamicConstantsAreRefusedAsReflection() {
        String reflection = "reflection and method handles are not reachable from rules";
        Handle getRuntime = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/Runtime", "getRuntime", "()Ljava/lang/Runtime;", false);

        assertThat(verify(consequence(m -> {
            m.visitLdcInsn(Type.getMethodType("(I)V"));
            m.visitLdcInsn(getRuntime);
            m.visitLdcInsn(new ConstantDynamic("x", "Ljava/lang/Object;", new Handle(Opcodes.H_INVOKESTATIC,
                    "java/lang/invoke/ConstantBootstraps", "nullConstant", "()Ljava/lang/Object;", false)));
        }))).containsExactly(refused("method type (I)V", reflection),
                refused("method handle java.lang.Runtime.getRuntime", reflection),
                refused("dynamic constant", reflection));
    }

    @Test
    void aLambdaIsCheckedByWhatItsHandleReaches() {
        Handle getRuntime = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/Runtime", "getRuntime", "()Ljava/lang/Runtime;", false);
        Handle length = new Handle(Opcodes.H_INVOKEVIRTUAL, "java/lang/String", "length", "()I", false);

        assertThat(verify(consequence(m -> {
            m.visitInvokeDynamicInsn("get", "()Ljava/util/function/Supplier;", METAFACTORY, Type.getType("()Ljava/lang/Object;"),
                    getRuntime, Type.getType("()Ljava/lang/Runtime;"));
            m.visitInvokeDynamicInsn("apply", "()Ljava/util/function/ToIntFunction;", METAFACTORY,
                    Type.getType("(Ljava/lang/Object;)I"), length, Type.getType("(Ljava/lang/String;)I"));
        }))).containsExactly(refused("java.lang.Runtime.getRuntime()Ljava.lang.Runtime;",
                "the JVM (System, Runtime, system properties) is not reachable from rules"));
    }

    @Test
    void aLambdaHandleThatWritesAStaticFieldOrAFieldOfAnObjectTheRulesDidNotDeclareIsRefused() {
        Handle putStatic = new Handle(Opcodes.H_PUTSTATIC, "java/util/Locale", "ROOT", "Ljava/util/Locale;", false);
        Handle putField = new Handle(Opcodes.H_PUTFIELD, "io/gpupool/policy/fact/LeaseFact", "idleSeconds", "J", false);

        assertThat(verify(consequence(m -> {
            m.visitInvokeDynamicInsn("accept", "()Ljava/util/function/Consumer;", METAFACTORY, putStatic);
            m.visitInvokeDynamicInsn("accept", "()Ljava/util/function/Consumer;", METAFACTORY, putField);
        }))).containsExactly(refused("java.util.Locale.ROOT", STATIC_STATE),
                refused("io.gpupool.policy.fact.LeaseFact.idleSeconds",
                        "rules may not change the fields of objects they did not declare"));
    }

    @Test
    void aStringConcatenationIsCheckedByTheConstantsItCarries() {
        Handle concat = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/invoke/StringConcatFactory", "makeConcatWithConstants",
                "()Ljava/lang/invoke/CallSite;", false);

        assertThat(verify(consequence(m -> {
            m.visitInvokeDynamicInsn("makeConcatWithConstants", "(J)Ljava/lang/String;", concat, "idle for \u0001 s");
            m.visitInvokeDynamicInsn("makeConcatWithConstants", "()Ljava/lang/String;", concat,
                    Type.getObjectType("java/lang/Thread"));
        }))).containsExactly(refused("java.lang.Thread.class",
                "threads (and streams, which may start them) are not reachable from rules"));
    }

    @Test
    void aMemberNoneOfADeclaredTypesAncestorsHasIsRefused() {
        String rootless = PKG + "Rootless";
        Map<String, byte[]> classes = new LinkedHashMap<>(consequence(m ->
                m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, rootless, "vanish", "()V", false)));
        classes.put(rootless, type(rootless, null, null, w -> { }));

        assertThat(verify(classes)).containsExactly(refused("io.gpupool.rules.hostile.Rootless.vanish()V", "no such member"));
    }

    @Test
    void anUnknownBootstrapIsRefused() {
        Handle objectMethods = new Handle(Opcodes.H_INVOKESTATIC, "java/lang/runtime/ObjectMethods", "bootstrap",
                "()Ljava/lang/Object;", false);

        assertThat(verify(consequence(m -> m.visitInvokeDynamicInsn("toString", "()Ljava/lang/String;", objectMethods))))
                .containsExactly(refused("invokedynamic java.lang.runtime.ObjectMethods.bootstrap",
                        "reflection and method handles are not reachable from rules"));
    }

    @Test
    void aDeclaredTypeMayExtendOnlyObjectEnumOrAnotherDeclaredType() {
        String base = PKG + "Base";
        String child = PKG + "Child";
        String evil = PKG + "Evil";
        String level = PKG + "Level";
        Map<String, byte[]> classes = new LinkedHashMap<>();
        classes.put(base, type(base, w -> { }));
        classes.put(child, type(child, base, null, w -> { }));
        classes.put(level, type(level, "java/lang/Enum", null, w -> { }));
        classes.put(evil, type(evil, "java/util/Timer", null, w -> { }));

        assertThat(verify(classes)).containsExactly(new RuleClassViolation(evil, "(class)", "extends java.util.Timer",
                "a rule's type may extend only Object or another declared type"));
    }

    @Test
    void aGeneratedClassMayImplementDataAndRuleModelInterfacesOrItsOwn() {
        String marker = PKG + "Marker";
        String ok = PKG + "Fine";
        String bad = PKG + "Runner";
        Map<String, byte[]> classes = new LinkedHashMap<>();
        classes.put(marker, type(marker, w -> { }));
        classes.put(ok, type(ok, "java/lang/Object", new String[] {"java/io/Serializable", "java/util/function/Predicate",
                marker}, w -> { }));
        classes.put(bad, type(bad, "java/lang/Object", new String[] {"java/lang/Runnable"}, w -> { }));

        assertThat(verify(classes)).singleElement().satisfies(v -> {
            assertThat(v.className()).isEqualTo(bad);
            assertThat(v.reference()).isEqualTo("implements java.lang.Runnable");
        });
    }

    @Test
    void aCallOnADeclaredTypeIsResolvedThroughItsSuperclassesSoAnInheritedMethodCannotHide() {
        String base = PKG + "Base";
        String child = PKG + "Child";
        Map<String, byte[]> classes = new LinkedHashMap<>();
        classes.put(base, type(base, w -> method(w, Opcodes.ACC_PUBLIC, "ownMethod", m -> { })));
        classes.put(child, type(child, base, null, w -> method(w, Opcodes.ACC_PUBLIC, "execute", m -> {
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, child, "ownMethod", "()V", false);
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, child, "getClass", "()Ljava/lang/Class;", false);
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, child, "hashCode", "()I", false);
        })));

        assertThat(verify(classes)).containsExactly(new RuleClassViolation(child, "execute",
                "io.gpupool.rules.hostile.Child.getClass()Ljava.lang.Class;",
                "reflection and method handles are not reachable from rules"));
    }

    @Test
    void aConstructorADeclaredTypeDoesNotHaveIsRefused() {
        String declared = PKG + "Hot";
        Map<String, byte[]> classes = new LinkedHashMap<>(consequence(m ->
                m.visitMethodInsn(Opcodes.INVOKESPECIAL, declared, "<init>", "(J)V", false)));
        classes.put(declared, type(declared, w -> method(w, Opcodes.ACC_PUBLIC, "<init>", m -> { })));

        assertThat(verify(classes)).containsExactly(refused("io.gpupool.rules.hostile.Hot.<init>(J)V", "no such constructor"));
    }

    @Test
    void eachForbiddenReferenceIsReportedOncePerMethodAndClassesInNameOrder() {
        String later = PKG + "ZLater";
        Map<String, byte[]> classes = new LinkedHashMap<>();
        classes.put(later, type(later, w -> method(w, Opcodes.ACC_PUBLIC, "execute", m ->
                m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "exit", "(I)V", false))));
        classes.put(RULE_CLASS, type(RULE_CLASS, w -> {
            method(w, Opcodes.ACC_PUBLIC, "execute", m -> {
                m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "exit", "(I)V", false);
                m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "exit", "(I)V", false);
            });
            method(w, Opcodes.ACC_PUBLIC, "again", m ->
                    m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "exit", "(I)V", false));
        }));

        assertThat(verify(classes)).extracting(RuleClassViolation::className, RuleClassViolation::method)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(RULE_CLASS, "execute"),
                        org.assertj.core.groups.Tuple.tuple(RULE_CLASS, "again"),
                        org.assertj.core.groups.Tuple.tuple(later, "execute"));
    }
}
