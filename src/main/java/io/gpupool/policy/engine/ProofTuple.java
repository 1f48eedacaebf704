package io.gpupool.policy.engine;

import org.drools.base.reteoo.BaseTuple;
import org.drools.base.rule.Declaration;
import org.kie.api.runtime.rule.FactHandle;

import java.util.function.IntFunction;

/**
 * The facts a proof chose for a rule's patterns, by tuple position: what a compiled join constraint
 * reads when a proof evaluates it outside a session ({@link ReclaimRules}' joins, the request and
 * its decisions in {@link DecisionBindings}). Asked only for constraints whose declarations are all
 * on positions the proof filled; the constraint's own fact is read from its handle, not from here.
 */
final class ProofTuple implements BaseTuple {
    private final IntFunction<FactHandle> byPosition;
    private final FactHandle last;
    private final int size;

    /** @param last the tuple's own handle where a constraint asks for it (null: never asked) */
    ProofTuple(IntFunction<FactHandle> byPosition, FactHandle last, int size) {
        this.byPosition = byPosition;
        this.last = last;
        this.size = size;
    }

    @Override public FactHandle get(Declaration declaration) { return get(declaration.getTupleIndex()); }
    @Override public Object getObject(Declaration declaration) { return get(declaration).getObject(); }
    @Override public FactHandle get(int index) { return byPosition.apply(index); }
    @Override public FactHandle getFactHandle() {
        if (last == null) {
            throw new UnsupportedOperationException("no handle of its own");
        }
        return last;
    }
    @Override public Object getObject(int index) { return get(index).getObject(); }
    @Override public int size() { return size; }
    @Override public Object[] toObjects() { throw new UnsupportedOperationException(); }
    @Override public Object[] toObjects(boolean reverse) { throw new UnsupportedOperationException(); }
    @Override public FactHandle[] toFactHandles() { throw new UnsupportedOperationException(); }
    @Override public BaseTuple getParent() { throw new UnsupportedOperationException(); }
    @Override public BaseTuple getTuple(int index) { throw new UnsupportedOperationException(); }
    @Override public int getIndex() { throw new UnsupportedOperationException(); }
    @Override public Object getContextObject() { throw new UnsupportedOperationException(); }
    @Override public BaseTuple skipEmptyHandles() { return this; }
}
