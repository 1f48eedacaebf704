package io.gpupool.policy.fact;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * What one evaluation read of the fact values that move between two evaluations of the same request:
 * pool free and lendable capacity and tenants' usage ({@link Moving}). Every read of such a value
 * goes through its record accessor (the fact methods that derive from them call the accessors too,
 * and equals, hashCode and toString count as reading all of them; FactReadsTest checks the classes
 * for it), and the accessor notes it here while an evaluation on this thread records. An evaluation
 * is a function of the values it read (rules have no clocks, services or mutable globals, and
 * Drools fires in an order fixed by the facts' order and values), so the same policy on facts that
 * agree everywhere else and give the same value for every read noted decides the same: a queued
 * request whose evaluation never looked at the pool a placement changed need not be evaluated again.
 */
public final class FactReads {
    /** The fact values that change as leases come and go; every other fact value is compared whole. */
    public enum Moving {
        POOL_FREE(f -> ((PoolFact) f).freeMilli()),
        POOL_FREE_BY_MODEL(f -> ((PoolFact) f).freeMilliByModel()),
        POOL_LENDABLE(f -> ((PoolFact) f).lendableMilli()),
        USAGE_USED(f -> ((TenantUsageFact) f).usedMilli()),
        USAGE_BORROWED(f -> ((TenantUsageFact) f).borrowedMilli()),
        USAGE_SUBTREE_USED(f -> ((TenantUsageFact) f).subtreeUsedMilli()),
        USAGE_WITHHELD_BELOW(f -> ((TenantUsageFact) f).withheldBelowMilli()),
        ANCESTOR_HEADROOM(f -> ((AncestorGuaranteeFact) f).headroomMilli()),
        ANCESTOR_WITHHELD(f -> ((AncestorGuaranteeFact) f).withheldMilli());

        private final Function<Object, Object> read;

        Moving(Function<Object, Object> read) {
            this.read = read;
        }

        /** The value in {@code fact} (noted, like any read, if this thread records). */
        public Object of(Object fact) {
            return read.apply(fact);
        }
    }

    /** Threads recording now: accessors skip the thread-local lookup while none is. */
    private static volatile int recording;
    private static final ThreadLocal<Log> CURRENT = new ThreadLocal<>();

    private FactReads() {
    }

    /**
     * Starts noting the moving values read on this thread from {@code facts} (by position), until
     * {@link Log#close}. A read from any other object (a fact a rule made, or one not among the
     * inputs) marks the log incomplete: its evaluation is not reused by its reads.
     */
    public static Log record(List<?> facts) {
        Log log = new Log(facts, CURRENT.get());
        CURRENT.set(log);
        synchronized (FactReads.class) {
            recording++;
        }
        return log;
    }

    static long noted(Object fact, Moving value, long read) {
        if (recording > 0) {
            note(fact, value, read);
        }
        return read;
    }

    static <T> T noted(Object fact, Moving value, T read) {
        if (recording > 0) {
            note(fact, value, read);
        }
        return read;
    }

    private static void note(Object fact, Moving value, Object read) {
        Log log = CURRENT.get();
        if (log != null) {
            log.add(fact, value, read);
        }
    }

    /**
     * Notes that {@code first} and {@code second} were compared by a moving value with this outcome
     * ({@link Long#compare}), where only the order matters to the caller: a later evaluation is the
     * same while the order is, whatever the values.
     */
    static int notedOrder(Object first, Object second, Moving value, int compared) {
        if (recording > 0) {
            Log log = CURRENT.get();
            if (log != null) {
                log.addOrder(first, second, value, Integer.signum(compared));
            }
        }
        return compared;
    }

    /** One recording: which moving value of which input position was read, and what it was. */
    public static final class Log implements AutoCloseable {
        private final Map<Object, Integer> positions;
        private final Log outer;
        private final List<Reading> reads = new ArrayList<>();
        private final Set<Long> ordersSeen = new HashSet<>();
        /** Reads noted so far, per position, as bits of {@link Moving} ordinals: each is kept once. */
        private final int[] seen;
        private boolean complete = true;
        private boolean closed;

        private Log(List<?> facts, Log outer) {
            this.outer = outer;
            this.positions = new IdentityHashMap<>(facts.size() * 2);
            for (int i = 0; i < facts.size(); i++) {
                positions.putIfAbsent(facts.get(i), i);
            }
            this.seen = new int[facts.size()];
        }

        private void add(Object fact, Moving value, Object read) {
            Integer position = positions.get(fact);
            if (position == null) {
                complete = false;
                return;
            }
            int bit = 1 << value.ordinal();
            if ((seen[position] & bit) == 0) {
                seen[position] |= bit;
                reads.add(new Read(position, value, read));
            }
        }

        private void addOrder(Object first, Object second, Moving value, int sign) {
            Integer a = positions.get(first);
            Integer b = positions.get(second);
            if (a == null || b == null) {
                complete = false;
                return;
            }
            if (ordersSeen.add(((long) a * 65_536 + b) * 64 + value.ordinal())) {
                reads.add(new Order(a, b, value, sign));
            }
        }

        /** Whether every moving value read came from an input position. */
        public boolean complete() {
            return complete;
        }

        /** The reads, each position and value once, in the order first read. */
        public List<Reading> reads() {
            return List.copyOf(reads);
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            CURRENT.set(outer);
            if (outer != null && !complete) {
                outer.complete = false; // an evaluation inside another: conservative, the outer one is not reused either
            }
            synchronized (FactReads.class) {
                recording--;
            }
        }
    }

    /** Something an evaluation learnt from the moving values of its inputs. */
    public sealed interface Reading permits Read, Order {
        /** Whether {@code facts} (read without noting when this thread does not record) tell the same. */
        boolean holdsIn(List<?> facts);

        /**
         * As {@link #holdsIn(List)} for {@code now}, where {@code then} are the facts it was read from:
         * a position holding the very same (immutable) object holds without reading it again.
         */
        boolean holdsIn(List<?> then, List<?> now);
    }

    /** A moving value read at an input position, and what it was. */
    public record Read(int position, Moving value, Object was) implements Reading {
        @Override
        public boolean holdsIn(List<?> facts) {
            return position < facts.size() && Objects.equals(value.of(facts.get(position)), was);
        }

        @Override
        public boolean holdsIn(List<?> then, List<?> now) {
            return position < now.size() && position < then.size() && then.get(position) == now.get(position)
                    || holdsIn(now);
        }
    }

    /** Two input positions compared by a moving value (a number), and the outcome's sign. */
    public record Order(int first, int second, Moving value, int sign) implements Reading {
        @Override
        public boolean holdsIn(List<?> facts) {
            return first < facts.size() && second < facts.size()
                    && Integer.signum(Long.compare((Long) value.of(facts.get(first)), (Long) value.of(facts.get(second)))) == sign;
        }

        @Override
        public boolean holdsIn(List<?> then, List<?> now) {
            return first < now.size() && second < now.size() && first < then.size() && second < then.size()
                    && then.get(first) == now.get(first) && then.get(second) == now.get(second) || holdsIn(now);
        }
    }

    /**
     * Whether two facts are equal apart from their moving values (the same object always is): what
     * two fact lists must agree on, position by position, before their reads are compared. Facts
     * without moving values are compared whole.
     */
    public static boolean sameApartFromMoving(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a instanceof PoolFact p && b instanceof PoolFact q) {
            return p.sameFixedPart(q);
        }
        if (a instanceof TenantUsageFact u && b instanceof TenantUsageFact v) {
            return u.sameFixedPart(v);
        }
        if (a instanceof AncestorGuaranteeFact g && b instanceof AncestorGuaranteeFact h) {
            return g.sameFixedPart(h);
        }
        return a != null && a.getClass() == b.getClass() && !(a instanceof PoolFact || a instanceof TenantUsageFact
                || a instanceof AncestorGuaranteeFact) && a.equals(b);
    }
}
