package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.clustersync.MigSlices.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** MIG instances counted per node laid on cards the way mig-parted lays them: largest first, on the card with most room. */
class MigSlicesTest {

    private static List<List<String>> profiles(List<List<MigInstance>> cards) {
        return cards.stream().map(c -> c.stream().map(MigInstance::profile).toList()).toList();
    }

    @ParameterizedTest(name = "{0} takes {1} slices")
    @CsvSource({"1g.10gb, 1", "3g.40gb, 3", "7g.80gb, 7", "1g.10gb+me, 1", "2G.20GB, 2"})
    void aProfileTakesTheSlicesItsNameSays(String profile, int slices) {
        assertThat(MigSlices.isProfile(profile)).isTrue();
        assertThat(MigSlices.slices(profile)).isEqualTo(slices);
    }

    @Test
    void aNameThatIsNotAProfileIsNeitherReadNorCounted() {
        assertThat(MigSlices.isProfile(null)).isFalse();
        assertThat(MigSlices.isProfile("a100")).isFalse();
        assertThat(MigSlices.isProfile("1g.10gb.extra")).isFalse();
        assertThatThrownBy(() -> MigSlices.slices("a100")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a MIG profile: a100");
    }

    @ParameterizedTest(name = "{0} has {1} slices per card")
    @CsvSource({"NVIDIA A30, 4", "NVIDIA A100-SXM4-80GB, 7", "NVIDIA-H100-80GB-HBM3, 7", "something unknown, 7"})
    void anA30HasFourSlicesAndEveryOtherMigCardSeven(String product, int slices) {
        assertThat(MigSlices.perCard(product)).isEqualTo(slices);
    }

    @Test
    void anUnnamedCardHasSevenSlices() {
        assertThat(MigSlices.perCard(null)).isEqualTo(7);
    }

    @ParameterizedTest(name = "{0} on {1}: {2} per card")
    @CsvSource({"1g.10gb, NVIDIA A100-SXM4-80GB, 7", "3g.40gb, NVIDIA A100-SXM4-80GB, 2", "4g.40gb, NVIDIA A100-SXM4-80GB, 1",
            "7g.80gb, NVIDIA A100-SXM4-80GB, 1", "1g.6gb, NVIDIA A30, 4", "2g.12gb, NVIDIA A30, 2"})
    void aCardHoldsAsManyInstancesOfOneProfileAsItsSlicesAllow(String profile, String product, int perCard) {
        assertThat(MigSlices.instancesPerCard(profile, product)).isEqualTo(perCard);
    }

    @Test
    void aProfileLargerThanTheCardStillCountsOneInstancePerCard() {
        assertThat(MigSlices.instancesPerCard("7g.80gb", "NVIDIA A30")).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}×3g + {1}×1g need {2} card(s)")
    @CsvSource({"0, 0, 0", "2, 1, 1", "2, 2, 2", "4, 0, 2", "0, 7, 1", "0, 8, 2", "4, 7, 3"})
    void theCardsNeededAreTheSlicesOverSevenRoundedUp(int threes, int ones, int cards) {
        assertThat(MigSlices.cardsNeeded(List.of(new Kind("3g.40gb", threes, 40960L), new Kind("1g.10gb", ones, 10240L)),
                "NVIDIA A100-SXM4-80GB")).isEqualTo(cards);
    }

    @Test
    void largerProfilesArePlacedFirstEachOnTheCardWithTheMostFreeSlices() {
        List<List<MigInstance>> cards = MigSlices.spread(
                List.of(new Kind("1g.10gb", 2, 10240L), new Kind("3G.40GB", 4, 40960L)), 2, "NVIDIA A100-SXM4-80GB");
        // 3g on card 0, 3g on card 1, 3g on card 0 (4 free each: the first), 3g on card 1, then 1g, 1g
        assertThat(profiles(cards)).containsExactly(
                List.of("3g.40gb", "3g.40gb", "1g.10gb"),
                List.of("3g.40gb", "3g.40gb", "1g.10gb"));
        assertThat(cards.get(0)).extracting(MigInstance::memoryMib).containsExactly(40960L, 40960L, 10240L);
        assertThat(cards.get(0)).extracting(MigInstance::gpuInstanceId).containsOnlyNulls();
    }

    @Test
    void aBalancedLayoutOnEveryCardIsReproduced() {
        // mig-parted "all-balanced" on an A100-80GB: 1×3g.40gb, 1×2g.20gb, 2×1g.10gb per card
        List<List<MigInstance>> cards = MigSlices.spread(List.of(new Kind("1g.10gb", 4, null), new Kind("2g.20gb", 2, null),
                new Kind("3g.40gb", 2, null)), 2, "NVIDIA A100-SXM4-80GB");
        assertThat(profiles(cards)).containsExactly(
                List.of("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"),
                List.of("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"));
    }

    @Test
    void fewerInstancesThanCardsLeaveTheLastCardsEmpty() {
        List<List<MigInstance>> cards = MigSlices.spread(List.of(new Kind("7g.80gb", 1, 81920L)), 3, "NVIDIA A100-SXM4-80GB");
        assertThat(profiles(cards)).containsExactly(List.of("7g.80gb"), List.of(), List.of());
    }
}
