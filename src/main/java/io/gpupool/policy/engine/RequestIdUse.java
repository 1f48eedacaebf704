package io.gpupool.policy.engine;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Interpreter;
import org.objectweb.asm.tree.analysis.Value;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether a rule set's compiled classes treat a request's id as a name only: read to join the facts
 * of one request with each other, never looked into. Then an admission's outcome cannot depend on
 * which id the request has, and two requests whose admission facts are equal but for their ids are
 * decided alike (their decisions differ by the id they carry): {@link EvaluationMemo} evaluates
 * such a shape once and hands its decisions, re-addressed, to every request of that shape.
 *
 * <p>The proof runs on the bytecode the build produced (every constraint, consequence, function,
 * accumulate and {@code from} of every rule is one of these classes; the sandbox lets nothing else
 * run) by following, within each method, every value a {@code requestId()} call returns
 * (an abstract interpretation over the method's instructions, through locals and the stack). A rule
 * set passes when each such value is only:
 * <ul>
 *   <li>compared for equality with another request id ({@code requestId == $a.requestId}: the
 *       executable model's {@code EvaluationUtil.areNullSafeEquals}, {@code Objects.equals},
 *       {@code equals}), or checked for null; or</li>
 *   <li>returned by an extractor ({@code Function1}) that the rule methods hand to Drools only as
 *       both sides of an equality index ({@code D.betaIndexedBy(.., EQUAL, .., idExtractor,
 *       idExtractor, ..)}), which hashes and compares the two ids with each other.</li>
 * </ul>
 * Anything else a rule does with an id (compare it with a constant, concatenate it, take its
 * length or hash, keep it in a field or collection, pass it to a function) fails the proof, and so
 * does reading a fact whole as text or hash ({@code toString}, {@code hashCode},
 * {@code String.valueOf}, appending an object, concatenating anything but strings, numbers and
 * booleans, formatting) or making a request or decision fact in rule code. A rule set that fails is
 * evaluated per request, as before. The facts' own methods a rule may call are the application's
 * ({@code io.gpupool.policy.fact}); the one that reads the id ({@code PoolFact.hasRoomFor}, through
 * the ids placement already failed for) is harmless where no pool fact names any request, which
 * {@link EvaluationMemo} checks of the facts it shares.
 */
public final class RequestIdUse {
    private static final String EXTRACTOR_INTERFACE = "org/drools/model/functions/Function1";
    private static final String BETA_INDEX_OWNER = "org/drools/modelcompiler/dsl/pattern/D";
    private static final String CONSTRAINT_TYPE = "org/drools/model/Index$ConstraintType";
    private static final Set<String> FACT_TYPES_NOT_MADE_BY_RULES = Set.of("io/gpupool/policy/fact/RequestFact",
            "io/gpupool/policy/decision/AdmissionDecision", "io/gpupool/policy/decision/ApprovalRequirement",
            "io/gpupool/policy/decision/PriorityAssignment", "io/gpupool/policy/decision/QuotaVerdict",
            "io/gpupool/policy/decision/PreemptionCandidate");
    /** Types whose text and hash do not come from a fact: what a message may be built from. */
    private static final Set<String> PLAIN_TYPES = Set.of("java/lang/String", "java/lang/Integer", "java/lang/Long",
            "java/lang/Short", "java/lang/Byte", "java/lang/Double", "java/lang/Float", "java/lang/Character",
            "java/lang/Boolean", "java/math/BigDecimal", "java/math/BigInteger");

    private RequestIdUse() {
    }

    /** Where a class looks into a request id: its internal name, the method, and what it does there. */
    public record Finding(String className, String method, String what) {
        @Override
        public String toString() {
            return className.replace('/', '.') + "." + method + ": " + what;
        }
    }

    /** Where {@code classes} (internal name → bytes) look into a request id; empty: they treat ids as names only. */
    public static List<Finding> contentUses(Map<String, byte[]> classes) {
        Map<String, ClassNode> nodes = new HashMap<>();
        classes.forEach((name, bytes) -> {
            ClassNode node = new ClassNode();
            new ClassReader(bytes).accept(node, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
            nodes.put(node.name, node);
        });
        // First the extractors that return an id, then every method with them known.
        Set<String> idExtractors = new HashSet<>();
        for (ClassNode node : nodes.values()) {
            for (MethodNode method : node.methods) {
                follow(node, method, Set.of(), idExtractors, new ArrayList<>());
            }
        }
        Set<Finding> found = new TreeSet<>(java.util.Comparator.comparing(Finding::toString));
        for (ClassNode node : nodes.values()) {
            for (MethodNode method : node.methods) {
                List<String> here = new ArrayList<>();
                follow(node, method, idExtractors, new HashSet<>(), here);
                wholeFactReads(method, here);
                here.forEach(what -> found.add(new Finding(node.name, method.name, what)));
            }
        }
        return List.copyOf(found);
    }

    /** True when {@code classes} pass: see the class comment. */
    public static boolean namesOnly(Map<String, byte[]> classes) {
        return contentUses(classes).isEmpty();
    }

    private static void follow(ClassNode owner, MethodNode method, Set<String> idExtractors, Set<String> returnsId,
                               List<String> uses) {
        if ((method.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0 || !touchesIds(owner, method, idExtractors)) {
            return; // nothing to follow: most methods neither read an id nor take an id extractor
        }
        boolean extractor = owner.interfaces.contains(EXTRACTOR_INTERFACE) && method.name.equals("apply");
        // An extractor's own class initialiser stores its INSTANCE; only other classes' uses of it are followed.
        Set<String> tracked = idExtractors.contains(owner.name) ? without(idExtractors, owner.name) : idExtractors;
        IdInterpreter interpreter = new IdInterpreter(method, tracked, extractor, uses);
        try {
            new Analyzer<>(interpreter).analyze(owner.name, method);
        } catch (AnalyzerException e) {
            uses.add("its bytecode could not be followed (" + e.getMessage() + ")");
        }
        if (interpreter.returnedId) {
            returnsId.add(owner.name);
        }
    }

    private static boolean touchesIds(ClassNode owner, MethodNode method, Set<String> idExtractors) {
        for (AbstractInsnNode insn : method.instructions) {
            if (insn instanceof MethodInsnNode call && isIdRead(call.name, call.desc)
                    || insn instanceof FieldInsnNode field && field.getOpcode() == Opcodes.GETSTATIC
                    && field.name.equals("INSTANCE") && idExtractors.contains(field.owner) && !field.owner.equals(owner.name)) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> without(Set<String> names, String name) {
        Set<String> rest = new HashSet<>(names);
        rest.remove(name);
        return rest;
    }

    /** Reads of a fact whole (its text or hash, where the id is part of both), found by instruction. */
    private static void wholeFactReads(MethodNode method, List<String> uses) {
        for (AbstractInsnNode insn : method.instructions) {
            if (insn instanceof MethodInsnNode call) {
                boolean noArgs = call.desc.startsWith("()");
                if ((call.name.equals("toString") && noArgs || call.name.equals("hashCode") && noArgs)
                        && !PLAIN_TYPES.contains(call.owner)) {
                    uses.add(call.owner + "." + call.name + " reads a value whole");
                } else if (call.owner.equals("java/lang/String") && (call.name.equals("valueOf")
                        && call.desc.equals("(Ljava/lang/Object;)Ljava/lang/String;") || call.name.equals("format")
                        || call.name.equals("formatted") || call.name.equals("join") && call.desc.contains("Iterable"))) {
                    uses.add("String." + call.name + " reads values whole");
                } else if (call.owner.equals("java/util/Objects") && (call.name.equals("toString")
                        || call.name.equals("hash") || call.name.equals("hashCode"))) {
                    uses.add("Objects." + call.name + " reads a value whole");
                } else if ((call.owner.equals("java/lang/StringBuilder") || call.owner.equals("java/lang/StringBuffer"))
                        && call.name.equals("append") && call.desc.startsWith("(Ljava/lang/Object;)")) {
                    uses.add("appending an object reads it whole");
                }
            } else if (insn instanceof InvokeDynamicInsnNode indy) {
                if (indy.bsm.getOwner().equals("java/lang/invoke/StringConcatFactory")) {
                    for (Type arg : Type.getArgumentTypes(indy.desc)) {
                        if (arg.getSort() == Type.OBJECT && !PLAIN_TYPES.contains(arg.getInternalName())
                                || arg.getSort() == Type.ARRAY) {
                            uses.add("concatenating a " + arg.getClassName() + " reads it whole");
                        }
                    }
                }
                for (Object arg : indy.bsmArgs) {
                    if (arg instanceof Handle handle && isIdRead(handle.getName(), handle.getDesc())) {
                        uses.add("a method reference to " + handle.getOwner() + "." + handle.getName());
                    }
                }
            } else if (insn instanceof TypeInsnNode type && type.getOpcode() == Opcodes.NEW
                    && FACT_TYPES_NOT_MADE_BY_RULES.contains(type.desc)) {
                uses.add("makes a " + type.desc.substring(type.desc.lastIndexOf('/') + 1) + " (a request's id with it)");
            } else if (insn instanceof LdcInsnNode ldc && ldc.cst instanceof Handle handle
                    && isIdRead(handle.getName(), handle.getDesc())) {
                uses.add("a method handle to " + handle.getOwner() + "." + handle.getName());
            }
        }
    }

    private static boolean isIdRead(String name, String desc) {
        return (name.equals("requestId") || name.equals("getRequestId")) && desc.equals("()Ljava/lang/String;");
    }

    /** What a value is, as far as request ids go. */
    record IdValue(int size, boolean id, String extractor, boolean mixedExtractor, boolean equalConstraint)
            implements Value {
        static final IdValue PLAIN_1 = new IdValue(1, false, null, false, false);
        static final IdValue PLAIN_2 = new IdValue(2, false, null, false, false);

        static IdValue plain(int size) {
            return size == 2 ? PLAIN_2 : size == 1 ? PLAIN_1 : new IdValue(size, false, null, false, false);
        }

        boolean tainted() {
            return id || extractor != null || mixedExtractor;
        }

        @Override
        public int getSize() {
            return size;
        }
    }

    /**
     * The abstract interpretation: sizes as {@code SourceInterpreter} computes them; request ids,
     * id extractors and the EQUAL constraint type followed through copies and merges; every
     * instruction that takes an id or an id extractor anywhere but where the class comment allows
     * is noted.
     */
    private static final class IdInterpreter extends Interpreter<IdValue> {
        private final MethodNode method;
        private final Set<String> idExtractors;
        private final boolean extractorApply;
        private final List<String> uses;
        private final Set<AbstractInsnNode> noted = new HashSet<>();
        boolean returnedId;

        IdInterpreter(MethodNode method, Set<String> idExtractors, boolean extractorApply, List<String> uses) {
            super(Opcodes.ASM9);
            this.method = method;
            this.idExtractors = idExtractors;
            this.extractorApply = extractorApply;
            this.uses = uses;
        }

        private void note(AbstractInsnNode insn, String what) {
            if (noted.add(insn)) {
                uses.add(what + " (instruction " + method.instructions.indexOf(insn) + ")");
            }
        }

        @Override
        public IdValue newValue(Type type) {
            if (type == Type.VOID_TYPE) {
                return null;
            }
            return IdValue.plain(type == null ? 1 : type.getSize());
        }

        @Override
        public IdValue newOperation(AbstractInsnNode insn) {
            switch (insn.getOpcode()) {
                case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1:
                    return IdValue.PLAIN_2;
                case Opcodes.LDC:
                    Object value = ((LdcInsnNode) insn).cst;
                    return IdValue.plain(value instanceof Long || value instanceof Double ? 2 : 1);
                case Opcodes.GETSTATIC:
                    FieldInsnNode field = (FieldInsnNode) insn;
                    if (field.name.equals("INSTANCE") && idExtractors.contains(field.owner)) {
                        return new IdValue(1, false, field.owner, false, false);
                    }
                    if (field.owner.equals(CONSTRAINT_TYPE) && field.name.equals("EQUAL")) {
                        return new IdValue(1, false, null, false, true);
                    }
                    return IdValue.plain(Type.getType(field.desc).getSize());
                default:
                    return IdValue.PLAIN_1;
            }
        }

        @Override
        public IdValue copyOperation(AbstractInsnNode insn, IdValue value) {
            return value;
        }

        @Override
        public IdValue unaryOperation(AbstractInsnNode insn, IdValue value) {
            int op = insn.getOpcode();
            if (op == Opcodes.CHECKCAST) {
                return value; // still the same value
            }
            if (op >= Opcodes.IRETURN && op <= Opcodes.ARETURN) {
                return value; // returnOperation judges it
            }
            if (value.tainted() && op != Opcodes.IFNULL && op != Opcodes.IFNONNULL && op != Opcodes.INSTANCEOF) {
                note(insn, value.id ? "a request id is used other than in an equality with another request id"
                        : "an id extractor is used other than as both sides of an equality index");
            }
            return switch (op) {
                case Opcodes.LNEG, Opcodes.DNEG, Opcodes.I2L, Opcodes.I2D, Opcodes.L2D, Opcodes.F2L, Opcodes.F2D,
                     Opcodes.D2L -> IdValue.PLAIN_2;
                case Opcodes.GETFIELD -> IdValue.plain(Type.getType(((FieldInsnNode) insn).desc).getSize());
                default -> IdValue.PLAIN_1;
            };
        }

        @Override
        public IdValue binaryOperation(AbstractInsnNode insn, IdValue value1, IdValue value2) {
            int op = insn.getOpcode();
            boolean idComparison = (op == Opcodes.IF_ACMPEQ || op == Opcodes.IF_ACMPNE) && value1.id && value2.id
                    && value1.extractor == null && value2.extractor == null;
            if ((value1.tainted() || value2.tainted()) && !idComparison) {
                note(insn, "a request id or id extractor is stored, indexed or compared with something else");
            }
            return switch (op) {
                case Opcodes.LALOAD, Opcodes.DALOAD, Opcodes.LADD, Opcodes.DADD, Opcodes.LSUB, Opcodes.DSUB, Opcodes.LMUL,
                     Opcodes.DMUL, Opcodes.LDIV, Opcodes.DDIV, Opcodes.LREM, Opcodes.DREM, Opcodes.LSHL, Opcodes.LSHR,
                     Opcodes.LUSHR, Opcodes.LAND, Opcodes.LOR, Opcodes.LXOR -> IdValue.PLAIN_2;
                default -> IdValue.PLAIN_1;
            };
        }

        @Override
        public IdValue ternaryOperation(AbstractInsnNode insn, IdValue value1, IdValue value2, IdValue value3) {
            if (value1.tainted() || value2.tainted() || value3.tainted()) {
                note(insn, "a request id or id extractor is stored in an array");
            }
            return IdValue.PLAIN_1;
        }

        @Override
        public IdValue naryOperation(AbstractInsnNode insn, List<? extends IdValue> values) {
            int size;
            if (insn.getOpcode() == Opcodes.MULTIANEWARRAY) {
                size = 1;
            } else if (insn instanceof InvokeDynamicInsnNode indy) {
                size = Type.getReturnType(indy.desc).getSize();
            } else {
                size = Type.getReturnType(((MethodInsnNode) insn).desc).getSize();
            }
            boolean tainted = values.stream().anyMatch(IdValue::tainted);
            if (insn instanceof MethodInsnNode call) {
                if (isIdRead(call.name, call.desc)) {
                    if (tainted) {
                        note(insn, "a request id is read of a request id");
                    }
                    return new IdValue(1, true, null, false, false);
                }
                if (!tainted) {
                    return IdValue.plain(size);
                }
                if (isEquality(call) && values.stream().allMatch(v -> v.id() && v.extractor() == null && !v.mixedExtractor())) {
                    return IdValue.plain(size);
                }
                if (call.owner.equals(BETA_INDEX_OWNER) && call.name.equals("betaIndexedBy") && values.size() == 6
                        && values.get(1).equalConstraint() && isIdExtractor(values.get(3)) && isIdExtractor(values.get(4))
                        && !values.get(0).tainted() && !values.get(2).tainted() && !values.get(5).tainted()) {
                    return IdValue.plain(size);
                }
            } else if (!tainted) {
                return IdValue.plain(size);
            }
            note(insn, "a request id or id extractor is handed to "
                    + (insn instanceof MethodInsnNode call ? call.owner + "." + call.name : "an invokedynamic call site"));
            return IdValue.plain(size);
        }

        private static boolean isIdExtractor(IdValue value) {
            return value.extractor != null && !value.mixedExtractor && !value.id;
        }

        private static boolean isEquality(MethodInsnNode call) {
            return call.name.equals("areNullSafeEquals") && call.owner.endsWith("/EvaluationUtil")
                    && call.desc.equals("(Ljava/lang/Object;Ljava/lang/Object;)Z")
                    || call.owner.equals("java/util/Objects") && call.name.equals("equals")
                    || call.name.equals("equals") && call.desc.equals("(Ljava/lang/Object;)Z")
                    && (call.owner.equals("java/lang/String") || call.owner.equals("java/lang/Object"));
        }

        @Override
        public void returnOperation(AbstractInsnNode insn, IdValue value, IdValue expected) {
            if (value.id && extractorApply && value.extractor == null && !value.mixedExtractor) {
                returnedId = true;
            } else if (value.tainted()) {
                note(insn, value.id ? "a request id is returned by a method other than an extractor"
                        : "an id extractor is returned");
            }
        }

        @Override
        public IdValue merge(IdValue value1, IdValue value2) {
            if (value1.equals(value2)) {
                return value1;
            }
            boolean mixed = value1.mixedExtractor || value2.mixedExtractor
                    || (value1.extractor != null || value2.extractor != null) && !java.util.Objects.equals(value1.extractor, value2.extractor);
            return new IdValue(Math.min(value1.size, value2.size), value1.id || value2.id,
                    mixed ? null : value1.extractor, mixed, value1.equalConstraint && value2.equalConstraint);
        }
    }
}
