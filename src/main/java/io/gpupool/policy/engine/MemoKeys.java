package io.gpupool.policy.engine;

import io.gpupool.policy.fact.FactReads;

import java.util.List;

/** What {@link EvaluationMemo} finds a remembered evaluation by, and checks it against. */
final class MemoKeys {
    private MemoKeys() {
    }

    /** The same compiled policy (the very instance) and an equal first fact (the request). */
    record RequestKey(CompiledPolicy policy, Object request) {
        @Override
        public boolean equals(Object o) {
            return o instanceof RequestKey k && k.policy == policy && k.request.equals(request);
        }

        @Override
        public int hashCode() {
            return 31 * System.identityHashCode(policy) + request.hashCode();
        }
    }

    /**
     * An evaluation, the facts it was evaluated on, and the moving values it read of them (null when
     * they could not all be traced: then only equal facts are answered).
     */
    record Known(Evaluation evaluation, List<Object> facts, List<FactReads.Reading> reads) {
        boolean holdsIn(List<Object> now) {
            if (reads == null) {
                return facts.equals(now);
            }
            if (now.size() != facts.size()) {
                return false;
            }
            for (int i = 0; i < now.size(); i++) {
                if (!FactReads.sameApartFromMoving(facts.get(i), now.get(i))) {
                    return false;
                }
            }
            for (FactReads.Reading read : reads) {
                if (!read.holdsIn(facts, now)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The same compiled policy (the very instance) and equal facts in the same order. */
    static final class Key {
        private final CompiledPolicy policy;
        private final List<Object> facts;
        private final int hash;

        /** {@code facts}: not changed afterwards. */
        Key(CompiledPolicy policy, List<Object> facts) {
            this.policy = policy;
            this.facts = facts;
            this.hash = 31 * System.identityHashCode(policy) + this.facts.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.policy == policy && k.hash == hash && k.facts.equals(facts);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
