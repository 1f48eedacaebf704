package io.gpupool.policy.engine;

import io.gpupool.policy.decision.Decisions;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What a compiled rule's consequence can do, read from its bytecode: whether it may call a given
 * {@link Decisions} method, and whether it may insert facts. {@link ReclaimRules} and
 * {@link PreemptingRules} prove from it which rules can order a reclaim or a preemption.
 */
final class ConsequenceCode {
    private static final String DECISIONS = Decisions.class.getName().replace('.', '/');

    private ConsequenceCode() {
    }

    /** What a rule's consequence can do, as far as its code shows: call the decision method asked about, insert facts. */
    record Consequence(boolean mayReclaim, boolean mayInsert) {
        static final Consequence UNKNOWN = new Consequence(true, true);
    }

    /**
     * Reads the consequence's code: the executable model's consequence is a generated class whose
     * methods, and the methods of the rule set's generated classes ({@code generated}: the build's
     * classes the sandbox verified) they call or refer to by lambda, are searched for a call to the
     * {@link Decisions} method named {@code decision} ({@code reclaim}, or {@code preempt} for
     * {@link PreemptingRules}). A consequence given the {@code drools} handle may insert.
     */
    static Consequence consequence(RuleImpl rule, Set<String> generated, Map<String, ClassNode> classes,
                                   String decision) {
        try {
            Object lambdaConsequence = rule.getConsequence();
            Field field = lambdaConsequence.getClass().getDeclaredField("consequence");
            field.setAccessible(true);
            org.drools.model.Consequence model = (org.drools.model.Consequence) field.get(lambdaConsequence);
            Object block = model.getBlock();
            Field inner = block.getClass().getDeclaredField("block");
            inner.setAccessible(true);
            Class<?> code = inner.get(block).getClass();
            ClassLoader loader = code.getClassLoader();
            Deque<String> pending = new ArrayDeque<>();
            Set<String> seen = new HashSet<>();
            String owner = code.getName().replace('.', '/');
            ClassNode start = ClassNode.read(owner, loader, classes);
            if (start == null) {
                return Consequence.UNKNOWN;
            }
            start.methods.keySet().forEach(m -> pending.add(owner + "." + m));
            while (!pending.isEmpty()) {
                String method = pending.pop();
                if (!seen.add(method)) {
                    continue;
                }
                int dot = method.indexOf('.');
                ClassNode node = ClassNode.read(method.substring(0, dot), loader, classes);
                if (node == null) {
                    return new Consequence(true, model.isUsingDrools());
                }
                Set<String> calls = node.methods.get(method.substring(dot + 1));
                if (calls == null) {
                    return new Consequence(true, model.isUsingDrools()); // inherited or unknown: cannot tell
                }
                for (String call : calls) {
                    if (call.startsWith(DECISIONS + "." + decision + "(")) {
                        return new Consequence(true, model.isUsingDrools());
                    }
                    String callOwner = call.substring(0, call.indexOf('.'));
                    if (generated.contains(callOwner)) {
                        pending.add(call);
                        if (call.startsWith(callOwner + ".<init>(")) {
                            // an object of the rule set's own handed to other code: any of its methods may run
                            ClassNode.read(callOwner, loader, classes).methods.keySet()
                                    .forEach(m -> pending.add(callOwner + "." + m));
                        }
                    }
                }
            }
            return new Consequence(false, model.isUsingDrools());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Consequence.UNKNOWN; // not the executable model's consequence, or not readable: assume the worst
        }
    }

    /** One class's methods (name + descriptor) and the methods each calls or refers to. */
    record ClassNode(Map<String, Set<String>> methods) {
        private static final ClassNode MISSING = new ClassNode(Map.of());

        /** The class as the rule set's class loader holds it; null when it has no bytes for it. */
        static ClassNode read(String internalName, ClassLoader loader, Map<String, ClassNode> cache) {
            ClassNode node = cache.computeIfAbsent(internalName, n -> parse(n, loader));
            return node == MISSING ? null : node;
        }

        private static ClassNode parse(String internalName, ClassLoader loader) {
            if (loader == null) {
                return MISSING;
            }
            try (InputStream in = loader.getResourceAsStream(internalName + ".class")) {
                if (in == null) {
                    return MISSING;
                }
                Map<String, Set<String>> methods = new HashMap<>();
                new ClassReader(in.readAllBytes()).accept(new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                     String[] exceptions) {
                        Set<String> calls = new HashSet<>();
                        methods.put(name + descriptor, calls);
                        return new MethodVisitor(Opcodes.ASM9) {
                            @Override
                            public void visitMethodInsn(int opcode, String owner, String n, String d, boolean itf) {
                                calls.add(owner + "." + n + d);
                            }

                            @Override
                            public void visitInvokeDynamicInsn(String n, String d, Handle bootstrap, Object... args) {
                                for (Object arg : args) {
                                    if (arg instanceof Handle h) {
                                        calls.add(h.getOwner() + "." + h.getName() + h.getDesc());
                                    }
                                }
                            }
                        };
                    }
                }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
                return new ClassNode(methods);
            } catch (IOException | RuntimeException e) {
                return MISSING;
            }
        }
    }
}
