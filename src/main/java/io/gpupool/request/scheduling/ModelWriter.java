package io.gpupool.request.scheduling;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.Mutation;
import io.gpupool.store.WorkingSet;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where the scheduling steps state what they decide: the {@link WorkingSet} (committed and
 * published, the live service) or an {@link Uncommitted} chain of models (a dry-run). The steps are
 * the same code either way; only whether anything is committed differs.
 */
interface ModelWriter {
    PoolSnapshot current();

    <R> R write(Mutation<R> mutation);

    <T, R> R write(Mutation<T> first, Function<? super T, Mutation<R>> then);

    static ModelWriter of(WorkingSet workingSet) {
        return new ModelWriter() {
            @Override
            public PoolSnapshot current() {
                return workingSet.current();
            }

            @Override
            public <R> R write(Mutation<R> mutation) {
                return workingSet.write(mutation);
            }

            @Override
            public <T, R> R write(Mutation<T> first, Function<? super T, Mutation<R>> then) {
                return workingSet.write(first, then);
            }
        };
    }

    /**
     * Writes that are never committed: each mutation runs on the model the previous one left
     * ({@link Changes#uncommitted}), as the writer would run them one after another, and what they
     * log is kept in order, or handed on at once to {@code sink} (a replay of weeks keeps none). A
     * mutation that throws leaves the model as it was, as a refused write does.
     */
    final class Uncommitted implements ModelWriter {
        private PoolSnapshot current;
        private final List<LoggedDecision> logged = new ArrayList<>();
        private final Consumer<LoggedDecision> sink;

        Uncommitted(PoolSnapshot start) {
            this.current = start;
            this.sink = logged::add;
        }

        Uncommitted(PoolSnapshot start, Consumer<LoggedDecision> sink) {
            this.current = start;
            this.sink = sink;
        }

        @Override
        public PoolSnapshot current() {
            return current;
        }

        @Override
        public <R> R write(Mutation<R> mutation) {
            Changes changes = Changes.uncommitted(current);
            R result = mutation.apply(current, changes);
            current = changes.after();
            changes.logged().forEach(sink);
            return result;
        }

        @Override
        public <T, R> R write(Mutation<T> first, Function<? super T, Mutation<R>> then) {
            Changes one = Changes.uncommitted(current);
            T firstResult = first.apply(current, one);
            PoolSnapshot between = one.after();
            Changes two = Changes.uncommitted(between);
            R result = then.apply(firstResult).apply(between, two);
            current = two.after(); // both steps or neither, as one queued write
            one.logged().forEach(sink);
            two.logged().forEach(sink);
            return result;
        }

        /**
         * Everything the writes logged, oldest first: the decision log a commit of each would have
         * appended (empty when they went to a sink).
         */
        List<LoggedDecision> logged() {
            return logged;
        }
    }
}
