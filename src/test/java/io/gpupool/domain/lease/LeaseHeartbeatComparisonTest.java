package io.gpupool.domain.lease;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the states that follow the model take for "a heartbeat alone": every component but the last heartbeat equal. */
class LeaseHeartbeatComparisonTest {
    private static final Instant T0 = Instant.parse("2026-03-02T08:00:00Z");
    private static final Lease LEASE = new Lease("l1", "r1", "nlp", "train-a", WorkloadKind.TRAINING, 50, true, true, "g1",
            LeaseState.ACTIVE, List.of(new DeviceShare("d1", 1000, null)), T0, T0.plusSeconds(3600), T0.plusSeconds(30),
            T0.plusSeconds(90), new Notice("r2", List.of("rule"), "v1", "PRIORITY"), "batch", "ai-org", null);

    @Test
    void aHeartbeatAloneLeavesALeaseTheSameApartFromIt() {
        Lease beat = LeaseTransitions.heartbeat(LEASE, T0.plusSeconds(60));

        assertThat(LEASE.sameApartFromHeartbeat(beat)).isTrue();
        assertThat(beat.sameApartFromHeartbeat(LEASE)).isTrue();
        assertThat(LEASE.sameApartFromHeartbeat(null)).isFalse();
    }

    @Test
    void anyOtherComponentChangedAloneMakesItAnotherLease() throws Exception {
        RecordComponent[] components = Lease.class.getRecordComponents();
        Class<?>[] types = Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
        Constructor<Lease> canonical = Lease.class.getDeclaredConstructor(types);
        for (int changed = 0; changed < components.length; changed++) {
            Object[] values = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
                values[i] = components[i].getAccessor().invoke(LEASE);
            }
            values[changed] = another(values[changed], types[changed]);
            Lease copy = canonical.newInstance(values);
            String name = components[changed].getName();
            assertThat(LEASE.sameApartFromHeartbeat(copy)).as("only %s changed", name).isEqualTo(name.equals("lastHeartbeat"));
            assertThat(LeaseTransitions.heartbeat(LEASE, copy.lastHeartbeat()).equals(copy))
                    .as("the heartbeat transition agrees for %s", name).isEqualTo(name.equals("lastHeartbeat"));
        }
    }

    private static Object another(Object value, Class<?> type) {
        if (type == String.class) {
            return value + "-other";
        } else if (type == int.class) {
            return (Integer) value + 1;
        } else if (type == boolean.class) {
            return !(Boolean) value;
        } else if (type == Instant.class) {
            return value == null ? T0 : ((Instant) value).plusSeconds(1);
        } else if (type == WorkloadKind.class) {
            return WorkloadKind.INFERENCE;
        } else if (type == LeaseState.class) {
            return LeaseState.RELEASED;
        } else if (type == List.class) {
            return List.of(new DeviceShare("d2", 1000, null));
        } else if (type == Notice.class) {
            return new Notice("r3", List.of("rule"), "v1", "PRIORITY");
        }
        throw new IllegalArgumentException("no other value for " + type);
    }
}
