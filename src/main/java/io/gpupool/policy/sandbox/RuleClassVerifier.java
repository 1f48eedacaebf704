package io.gpupool.policy.sandbox;

import io.gpupool.policy.sandbox.RuleClassAllowlist.Use;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks every class a rule-set build produced against {@link RuleClassAllowlist}, instruction by
 * instruction: method calls, field reads and writes, class constants, method handles (a method
 * reference such as {@code Runtime::getRuntime} is a handle), invokedynamic bootstraps, exception
 * handlers, monitors, superclasses and interfaces. A call on a generated class is resolved through
 * its superclass chain, so a declared type cannot inherit a capability its name hides.
 */
public final class RuleClassVerifier {
    private record Header(String superName, List<String> interfaces, Set<String> members) {
    }

    /** Every violation in {@code classes} (internal name → bytes), in a stable order. */
    public List<RuleClassViolation> verify(Map<String, byte[]> classes) {
        Map<String, Header> headers = new HashMap<>();
        classes.forEach((name, bytes) -> headers.put(name, header(bytes)));
        List<RuleClassViolation> violations = new ArrayList<>();
        classes.keySet().stream().sorted().forEach(name -> check(name, classes.get(name), headers, violations));
        return violations;
    }

    private static Header header(byte[] bytes) {
        Set<String> members = new HashSet<>();
        String[] superAndInterfaces = new String[1];
        List<String> interfaces = new ArrayList<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] itfs) {
                superAndInterfaces[0] = superName;
                interfaces.addAll(List.of(itfs == null ? new String[0] : itfs));
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                members.add(name);
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                members.add(name + descriptor);
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return new Header(superAndInterfaces[0], interfaces, members);
    }

    private static void check(String className, byte[] bytes, Map<String, Header> own, List<RuleClassViolation> out) {
        Set<String> seen = new LinkedHashSet<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            private void refuse(String method, String reference, String reason) {
                if (seen.add(method + " " + reference)) {
                    out.add(new RuleClassViolation(className, method, reference.replace('/', '.'), reason));
                }
            }

            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] itfs) {
                if (superName != null && !superName.equals("java/lang/Object") && !superName.equals("java/lang/Enum")
                        && !own.containsKey(superName)) {
                    refuse("(class)", "extends " + superName, "a rule's type may extend only Object or another declared type");
                }
                for (String itf : itfs == null ? new String[0] : itfs) {
                    if (!own.containsKey(itf) && !RuleClassAllowlist.implementable(itf)) {
                        refuse("(class)", "implements " + itf, RuleClassAllowlist.category(itf + "."));
                    }
                }
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                if ((access & Opcodes.ACC_STATIC) != 0 && (access & Opcodes.ACC_FINAL) == 0) {
                    refuse("(field " + name + ")", "static " + name, "static mutable state is not allowed in rules");
                }
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String methodName, String descriptor, String signature,
                                             String[] exceptions) {
                if ((access & Opcodes.ACC_SYNCHRONIZED) != 0) {
                    refuse(methodName, "synchronized " + methodName, "threads and locks are not reachable from rules");
                }
                if ((access & Opcodes.ACC_NATIVE) != 0) {
                    refuse(methodName, "native " + methodName, "native code is not reachable from rules");
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    private void member(String owner, String name, String desc, Use use) {
                        resolve(owner, name, desc, use, own).ifPresent(reason ->
                                refuse(methodName, owner + "." + name + (use == Use.CALL_STATIC || use == Use.CALL_INSTANCE
                                        || use == Use.CONSTRUCT ? desc : ""), reason));
                    }

                    private void handle(Handle h) {
                        Use use = switch (h.getTag()) {
                            case Opcodes.H_INVOKESTATIC -> Use.CALL_STATIC;
                            case Opcodes.H_NEWINVOKESPECIAL -> Use.CONSTRUCT;
                            case Opcodes.H_GETSTATIC -> Use.GET_STATIC;
                            case Opcodes.H_PUTSTATIC -> Use.PUT_STATIC;
                            case Opcodes.H_GETFIELD -> Use.GET_FIELD;
                            case Opcodes.H_PUTFIELD -> Use.PUT_FIELD;
                            default -> Use.CALL_INSTANCE;
                        };
                        if (use == Use.PUT_STATIC) {
                            refuse(methodName, h.getOwner() + "." + h.getName(), "static mutable state is not allowed in rules");
                            return;
                        }
                        if (use == Use.PUT_FIELD && !own.containsKey(h.getOwner())) {
                            refuse(methodName, h.getOwner() + "." + h.getName(),
                                    "rules may not change the fields of objects they did not declare");
                            return;
                        }
                        member(h.getOwner(), h.getName(), h.getDesc(), use);
                    }

                    private void constant(Object value) {
                        if (value instanceof Type type) {
                            Type element = type.getSort() == Type.ARRAY ? type.getElementType() : type;
                            if (type.getSort() == Type.METHOD) {
                                refuse(methodName, "method type " + type, RuleClassAllowlist.category("java/lang/invoke/"));
                            } else if (element.getSort() == Type.OBJECT) {
                                member(element.getInternalName(), "class", "", Use.TYPE_CONSTANT);
                            }
                        } else if (value instanceof Handle h) {
                            refuse(methodName, "method handle " + h.getOwner() + "." + h.getName(),
                                    RuleClassAllowlist.category("java/lang/invoke/"));
                        } else if (value instanceof ConstantDynamic) {
                            refuse(methodName, "dynamic constant", RuleClassAllowlist.category("java/lang/invoke/"));
                        }
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                        Use use = opcode == Opcodes.INVOKESTATIC ? Use.CALL_STATIC
                                : name.equals("<init>") ? Use.CONSTRUCT : Use.CALL_INSTANCE;
                        member(owner, name, desc, use);
                    }

                    @Override
                    public void visitFieldInsn(int opcode, String owner, String name, String desc) {
                        if (opcode == Opcodes.PUTSTATIC && !(own.containsKey(owner) && methodName.equals("<clinit>"))) {
                            refuse(methodName, owner + "." + name, "static mutable state is not allowed in rules");
                            return;
                        }
                        Use use = switch (opcode) {
                            case Opcodes.GETSTATIC -> Use.GET_STATIC;
                            case Opcodes.PUTSTATIC -> Use.PUT_STATIC;
                            case Opcodes.GETFIELD -> Use.GET_FIELD;
                            default -> Use.PUT_FIELD;
                        };
                        if (use == Use.PUT_FIELD && !own.containsKey(owner)) {
                            refuse(methodName, owner + "." + name, "rules may not change the fields of objects they did not declare");
                            return;
                        }
                        member(owner, name, "", use);
                    }

                    @Override
                    public void visitLdcInsn(Object value) {
                        constant(value);
                    }

                    @Override
                    public void visitInvokeDynamicInsn(String name, String desc, Handle bootstrap, Object... args) {
                        if (!RuleClassAllowlist.bootstrap(bootstrap.getOwner(), bootstrap.getName())) {
                            refuse(methodName, "invokedynamic " + bootstrap.getOwner() + "." + bootstrap.getName(),
                                    RuleClassAllowlist.category("java/lang/invoke/"));
                            return;
                        }
                        for (Object arg : args) {
                            if (arg instanceof Handle h) {
                                handle(h);
                            } else if (!(arg instanceof Type t && t.getSort() == Type.METHOD)) {
                                constant(arg); // a method type only describes the lambda's signature
                            }
                        }
                    }

                    @Override
                    public void visitInsn(int opcode) {
                        if (opcode == Opcodes.MONITORENTER || opcode == Opcodes.MONITOREXIT) {
                            refuse(methodName, "synchronized block", "threads and locks are not reachable from rules");
                        }
                    }

                    @Override
                    public void visitMultiANewArrayInsn(String descriptor, int dimensions) {
                        refuse(methodName, "new " + descriptor, "multi-dimensional arrays are not available to rules");
                    }

                    @Override
                    public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
                        if (RuleClassAllowlist.neverCaught(type)) {
                            refuse(methodName, type == null ? "finally or catch-all" : "catch " + type,
                                    "rules may not catch Throwable or Error, nor use finally: it could swallow the evaluation budget");
                        }
                    }
                };
            }
        }, 0);
    }

    /** Resolves a member of a generated class through its superclass chain, then asks the allowlist. */
    private static Optional<String> resolve(String owner, String name, String desc, Use use, Map<String, Header> own) {
        String current = owner;
        Set<String> visited = new HashSet<>();
        while (own.containsKey(current) && visited.add(current)) {
            Header h = own.get(current);
            if (use == Use.TYPE_CONSTANT || h.members().contains(name + desc) || h.members().contains(name)) {
                return Optional.empty();
            }
            if (use == Use.CONSTRUCT) {
                return Optional.of("no such constructor");
            }
            current = h.superName();
            if (current == null) {
                return Optional.of("no such member");
            }
        }
        return RuleClassAllowlist.refuse(current, name, desc, use);
    }
}
