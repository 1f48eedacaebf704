package io.gpupool.policy.sandbox;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import java.util.HashSet;
import java.util.Set;

/**
 * Rewrites a verified rule class so its evaluation budget reaches inside it: a
 * {@link RuleBudget#tick()} on entering every method (which bounds recursion, and every call a
 * constraint or consequence makes) and before every backward jump (which bounds every loop, since
 * a loop needs one), and {@link RuleBudget#arrayLength(int)} before every array allocation. Neither
 * call changes the operand stack's height, so the class's stack map frames stay valid as they are.
 */
public final class RuleClassInstrumenter {
    private static final String BUDGET = RuleBudget.class.getName().replace('.', '/');

    public byte[] instrument(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                    return next;
                }
                return new MethodVisitor(Opcodes.ASM9, next) {
                    private final Set<Label> visited = new HashSet<>();

                    private void tick() {
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, "tick", "()V", false);
                    }

                    @Override
                    public void visitCode() {
                        super.visitCode();
                        tick();
                    }

                    @Override
                    public void visitLabel(Label label) {
                        super.visitLabel(label);
                        visited.add(label);
                    }

                    @Override
                    public void visitJumpInsn(int opcode, Label label) {
                        if (visited.contains(label)) {
                            tick();
                        }
                        super.visitJumpInsn(opcode, label);
                    }

                    @Override
                    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
                        if (visited.contains(dflt) || java.util.Arrays.stream(labels).anyMatch(visited::contains)) {
                            tick();
                        }
                        super.visitTableSwitchInsn(min, max, dflt, labels);
                    }

                    @Override
                    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
                        if (visited.contains(dflt) || java.util.Arrays.stream(labels).anyMatch(visited::contains)) {
                            tick();
                        }
                        super.visitLookupSwitchInsn(dflt, keys, labels);
                    }

                    @Override
                    public void visitIntInsn(int opcode, int operand) {
                        if (opcode == Opcodes.NEWARRAY) {
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, "arrayLength", "(I)I", false);
                        }
                        super.visitIntInsn(opcode, operand);
                    }

                    @Override
                    public void visitTypeInsn(int opcode, String type) {
                        if (opcode == Opcodes.ANEWARRAY) {
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, "arrayLength", "(I)I", false);
                        }
                        super.visitTypeInsn(opcode, type);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }
}
