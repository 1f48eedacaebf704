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
        /** The instant of each write, where a simulated clock gives it (null: the model keeps its time). */
        private final java.util.function.Supplier<java.time.Instant> clock;

        Uncommitted(PoolSnapshot start) {
            this.current = start;
            this.sink = logged::add;
            this.clock = null;
        }

        /**
         * Writes at the instants {@code clock} gives: a model a write changed is taken at its instant,
         * as the service's writer stamps each commit with its clock (policy counts a lease's runtime
         * and heartbeat age at the model's time, so a model that kept its first time would never see
         * a lease age past a protection such as the default ten minutes before priority preemption).
         */
        Uncommitted(PoolSnapshot start, Consumer<LoggedDecision> sink, java.util.function.Supplier<java.time.Instant> clock) {
            this.current = start;
            this.sink = sink;
            this.clock = clock;
        }

        private Changes changes(PoolSnapshot before) {
            return clock == null ? Changes.uncommitted(before) : Changes.uncommitted(before, clock.get());
        }

        @Override
        public PoolSnapshot current() {
            return current;
        }

        @Override
        public <R> R write(Mutation<R> mutation) {
            Changes changes = changes(current);
            R result = mutation.apply(current, changes);
            current = changes.after();
            changes.logged().forEach(sink);
            return result;
        }

        @Override
        public <T, R> R write(Mutation<T> first, Function<? super T, Mutation<R>> then) {
            Changes one = changes(current);
            T firstResult = first.apply(current, one);
            PoolSnapshot between = one.after();
            Changes two = changes(between);
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
