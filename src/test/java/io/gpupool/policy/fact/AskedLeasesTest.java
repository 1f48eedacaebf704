package io.gpupool.policy.fact;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A victim-search proof walks the smaller side: the leases a search is handed, listed from the
 * cards it asks about, or every lease that could pass a pattern, tested for being handed. Both must
 * name the very same leases, or the proof would answer differently by which side was smaller:
 * the leases on the asked cards and the other members of their gangs, each once.
 */
class AskedLeasesTest {

    @Test
    void theListedLeasesAreExactlyThoseTheTestAccepts() {
        Random random = new Random(7);
        for (int round = 0; round < 300; round++) {
            List<LeaseFact> pool = randomPool(random, 60, 40);
            Set<String> devices = randomDevices(random, 40);
            LeaseProof.Asked asked = PoolLeaseFacts.askedAmong(pool, devices);

            List<LeaseFact> listed = new ArrayList<>(asked.listedIfFewerThan(Integer.MAX_VALUE));
            List<LeaseFact> tested = pool.stream().filter(asked::test).toList();

            assertThat(listed).as("round %d, devices %s", round, devices).containsExactlyInAnyOrderElementsOf(tested);
        }
    }

    @Test
    void aGangMemberOffTheAskedCardsIsHandedWithTheMemberOnThem() {
        LeaseFact onAsked = lease("lease-1", "gang-a", "gpu-1");
        LeaseFact elsewhere = lease("lease-2", "gang-a", "gpu-9");
        LeaseFact unrelated = lease("lease-3", null, "gpu-8");

        LeaseProof.Asked asked = PoolLeaseFacts.askedAmong(List.of(onAsked, elsewhere, unrelated), Set.of("gpu-1", "gpu-2"));

        assertThat(asked.listedIfFewerThan(100)).containsExactlyInAnyOrder(onAsked, elsewhere);
    }

    @Test
    void aLeaseOnSeveralAskedCardsIsListedOnce() {
        LeaseFact wide = lease("lease-1", null, "gpu-1", "gpu-2", "gpu-3");

        LeaseProof.Asked asked = PoolLeaseFacts.askedAmong(List.of(wide), Set.of("gpu-1", "gpu-2", "gpu-3"));

        assertThat(asked.listedIfFewerThan(100)).containsExactly(wide);
    }

    @Test
    void noListIsMadeForAsManyCardsAsTheOtherSideOrForTheWholePool() {
        List<LeaseFact> pool = List.of(lease("lease-1", null, "gpu-1"), lease("lease-2", null, "gpu-2"));

        assertThat(PoolLeaseFacts.askedAmong(pool, Set.of("gpu-1", "gpu-2")).listedIfFewerThan(2)).isNull();
        assertThat(PoolLeaseFacts.askedAmong(pool, Set.of("gpu-1", "gpu-2")).listedIfFewerThan(3)).hasSize(2);
        assertThat(PoolLeaseFacts.askedAmong(pool, null).listedIfFewerThan(Integer.MAX_VALUE)).isNull();
        assertThat(PoolLeaseFacts.askedAmong(pool, null).test(pool.get(0))).isTrue();
    }

    private static List<LeaseFact> randomPool(Random random, int leases, int cards) {
        List<LeaseFact> pool = new ArrayList<>();
        for (int i = 0; i < leases; i++) {
            int width = 1 + random.nextInt(4);
            Set<String> held = new HashSet<>();
            while (held.size() < width) {
                held.add("gpu-" + random.nextInt(cards));
            }
            String gang = random.nextInt(3) == 0 ? "gang-" + random.nextInt(8) : null;
            pool.add(lease("lease-" + i, gang, held.toArray(String[]::new)));
        }
        return pool;
    }

    private static Set<String> randomDevices(Random random, int cards) {
        Set<String> devices = new HashSet<>();
        int count = random.nextInt(8);
        for (int i = 0; i < count; i++) {
            devices.add("gpu-" + random.nextInt(cards));
        }
        return devices;
    }

    private static LeaseFact lease(String id, String gang, String... devices) {
        return new LeaseFact(id, "req-" + id, "nlp", "ai-org", "train-pool", "TRAINING", 50, true, false, gang, "ACTIVE",
                1000L * devices.length, List.of(devices), List.of("H100-SXM-80G"), 7200, false, -1, 0, 20, false, 0,
                "HEALTHY", UsageHistory.NONE, "NONE", -1, -1, -1);
    }
}
