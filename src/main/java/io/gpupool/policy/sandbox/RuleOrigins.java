package io.gpupool.policy.sandbox;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which rule, query or function of the author's text each generated class (or method) came from.
 * The executable model names its classes by content hash; the rule-building methods it generates
 * name each rule ({@code D.rule(package, name)}) and then refer to the lambda classes the rule
 * uses, so reading those methods maps every lambda back to its rules. Functions are static methods
 * of the generated {@code Rules…} class and keep their names.
 */
public final class RuleOrigins {
    private static final String DSL = "org/drools/modelcompiler/dsl/pattern/D";
    private final Map<String, Set<String>> rulesByClass;
    /** Origins of single methods: functions, and the rule-building methods that evaluate constant conditions. */
    private final Map<String, String> functionsByMethod;

    private RuleOrigins(Map<String, Set<String>> rulesByClass, Map<String, String> functionsByMethod) {
        this.rulesByClass = rulesByClass;
        this.functionsByMethod = functionsByMethod;
    }

    public static RuleOrigins of(Map<String, byte[]> classes) {
        Map<String, Set<String>> rules = new LinkedHashMap<>();
        Map<String, String> functions = new LinkedHashMap<>();
        classes.forEach((name, bytes) -> {
            String simple = name.substring(name.lastIndexOf('/') + 1);
            if (simple.startsWith("Rules")) {
                read(name, bytes, classes.keySet(), rules, functions);
            }
        });
        return new RuleOrigins(rules, functions);
    }

    /**
     * The origins of a rule base assembled from packages built apart: each package's generated
     * classes live under its own Java package, so no class has origins in two of them.
     */
    public static RuleOrigins union(java.util.Collection<RuleOrigins> parts) {
        Map<String, Set<String>> rules = new LinkedHashMap<>();
        Map<String, String> functions = new LinkedHashMap<>();
        for (RuleOrigins part : parts) {
            part.rulesByClass.forEach((name, names) -> rules.computeIfAbsent(name, n -> new TreeSet<>()).addAll(names));
            functions.putAll(part.functionsByMethod);
        }
        return new RuleOrigins(rules, functions);
    }

    private static void read(String className, byte[] bytes, Set<String> own, Map<String, Set<String>> rules,
                             Map<String, String> functions) {
        // Functions are the public static methods of the Rules… class itself (its RuleMethods… classes hold the builders).
        boolean functionHolder = !className.matches(".*RuleMethods\\d+$");
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String method, String desc, String signature, String[] exceptions) {
                boolean publicStatic = (access & Opcodes.ACC_PUBLIC) != 0 && (access & Opcodes.ACC_STATIC) != 0;
                if (functionHolder && publicStatic && !method.startsWith("<")) {
                    functions.put(className + "." + method, "function " + method);
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    private final List<String> strings = new ArrayList<>();
                    private final Set<String> used = new HashSet<>();
                    private final Set<String> ownLambdas = new HashSet<>();
                    private String origin = method.startsWith("query_") ? "query " + method.substring("query_".length()) : null;

                    @Override
                    public void visitLdcInsn(Object value) {
                        if (value instanceof String s) {
                            strings.add(s);
                        } else if (value instanceof Type t && own.contains(t.getInternalName())) {
                            used.add(t.getInternalName());
                        }
                    }

                    @Override
                    public void visitFieldInsn(int opcode, String owner, String name, String d) {
                        note(owner);
                    }

                    @Override
                    public void visitTypeInsn(int opcode, String type) {
                        note(type);
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String name, String d, boolean itf) {
                        if (owner.equals(DSL) && (name.equals("rule") || name.equals("query")) && strings.size() >= 2) {
                            String named = strings.get(strings.size() - 1);
                            origin = name.equals("rule") ? "rule \"" + named + "\""
                                    : "query " + (method.startsWith("query_") ? method.substring("query_".length()) : named);
                        }
                        note(owner);
                    }

                    @Override
                    public void visitInvokeDynamicInsn(String name, String d, Handle bsm, Object... args) {
                        for (Object a : args) {
                            if (a instanceof Handle h) {
                                note(h.getOwner());
                                if (h.getOwner().equals(className)) {
                                    ownLambdas.add(className + "." + h.getName());
                                }
                            }
                        }
                    }

                    private void note(String owner) {
                        if (own.contains(owner) && !owner.equals(className)) {
                            used.add(owner);
                        }
                    }

                    @Override
                    public void visitEnd() {
                        if (origin != null) {
                            used.forEach(c -> rules.computeIfAbsent(c, k -> new TreeSet<>()).add(origin));
                            // The builder method itself computes constant conditions (an eval or a from without variables).
                            functions.putIfAbsent(className + "." + method, origin);
                            ownLambdas.forEach(m -> functions.putIfAbsent(m, origin));
                        }
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    }

    /** The rules, queries or function a class or method came from; empty when unknown. */
    public List<String> of(String className, String method) {
        String function = functionsByMethod.get(className + "." + method);
        if (function != null) {
            return List.of(function);
        }
        String outer = className.contains("$") ? className.substring(0, className.indexOf('$')) : className;
        return List.copyOf(rulesByClass.getOrDefault(outer, Set.of()));
    }

    /** The origin of the innermost generated frame of a stack trace (where a budget was spent). */
    public List<String> of(StackTraceElement[] trace, Set<String> generatedClasses) {
        for (StackTraceElement frame : trace) {
            String internal = frame.getClassName().replace('.', '/');
            if (generatedClasses.contains(internal)) {
                List<String> origin = of(internal, frame.getMethodName());
                if (!origin.isEmpty()) {
                    return origin;
                }
            }
        }
        return List.of();
    }
}
