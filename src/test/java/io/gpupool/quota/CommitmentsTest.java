package io.gpupool.quota;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.testing.Fleets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The arithmetic behind "guarantees add up": a tree counts once, every card of the pool is capacity. */
class CommitmentsTest {
    /** org → dept → team, and a second org; quotas written tenant=gpus, all models, in pool p. */
    private static final Map<String, String> PARENTS = new HashMap<>(Map.of("dept", "org", "team", "dept", "team2", "dept"));

    @ParameterizedTest(name = "{0}: {1} → {2} GPUs guaranteed")
    @CsvSource(delimiter = ';', value = {
            "a single organisation; org=6; 6",
            "a team carved out of its department and org counts once; org=8 dept=6 team=4; 8",
            "children promised more than their parent count what they are promised; org=4 dept=3 team=4 team2=2; 6",
            "teams under parents without a quota count their own; team=3 team2=2; 5",
            "two organisations add up; org=4 other=3; 7",
    })
    void guaranteesAreSummedOverTreeRoots(String name, String quotas, int total) {
        List<Quota> list = new ArrayList<>();
        Arrays.stream(quotas.split(" ")).map(q -> q.split("=")).forEach(q ->
                list.add(new Quota(q[0], "p", Quota.ANY_MODEL, Integer.parseInt(q[1]), 0, 0)));

        assertThat(Commitments.of(list, PARENTS, cards(8, "H100")).get("p/*").guaranteedGpus()).isEqualTo(total);
    }

    @Test
    void aTenantsModelQuotasCountWhenTheyExceedItsAllModelsGuarantee() {
        List<Quota> quotas = List.of(new Quota("team", "p", "H100", 5, 0, 0), new Quota("team", "p", "A100", 2, 0, 0),
                new Quota("team", "p", Quota.ANY_MODEL, 4, 0, 0));

        Map<String, PoolCommitment> c = Commitments.of(quotas, PARENTS, cards(8, "H100"));

        assertThat(c.get("p/*").guaranteedGpus()).isEqualTo(7);
        assertThat(c.get("p/H100")).isEqualTo(PoolCommitment.of("p", "H100", 8, 5));
        assertThat(c.get("p/A100")).isEqualTo(PoolCommitment.of("p", "A100", 0, 2));
    }

    @Test
    void brokenCardsStillCountAsThePoolsCapacity() {
        List<Device> devices = new ArrayList<>(cards(3, "H100"));
        devices.add(Fleets.gpu("n2", 0).model("H100").pool("p").health(DeviceHealth.UNHEALTHY).build());

        assertThat(Commitments.of(List.of(new Quota("org", "p", Quota.ANY_MODEL, 4, 0, 0)), PARENTS, devices)
                .get("p/*").exceedsPool()).isFalse();
    }

    @Test
    void aWriteIsRefusedOnlyWhenItLeavesItsPoolMoreOvercommittedThanBefore() {
        Map<String, PoolCommitment> before = Map.of("p/*", PoolCommitment.of("p", "*", 8, 10));
        Map<String, PoolCommitment> worse = Map.of("p/*", PoolCommitment.of("p", "*", 8, 12));
        Map<String, PoolCommitment> better = Map.of("p/*", PoolCommitment.of("p", "*", 8, 9));

        assertThat(Commitments.refusals(before, worse, Set.of("p"), Set.of()))
                .containsExactly("guarantees in pool p would total 12 GPUs, 4 more than its 8 GPUs");
        assertThat(Commitments.refusals(before, better, Set.of("p"), Set.of())).isEmpty();
        assertThat(Commitments.refusals(before, worse, Set.of("p"), Set.of("p"))).isEmpty();
        assertThat(Commitments.refusals(before, worse, Set.of("other"), Set.of())).isEmpty();
    }

    private static List<Device> cards(int count, String model) {
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            devices.add(Fleets.gpu("n1", i).model(model).pool("p").build());
        }
        return devices;
    }
}
