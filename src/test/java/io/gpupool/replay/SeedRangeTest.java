package io.gpupool.replay;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The --seeds option: a range, a list, or one seed, and a refusal that quotes what was typed. */
class SeedRangeTest {
    @Test
    void aRangeIncludesBothEnds() {
        assertThat(SeedRange.parse("42-44")).containsExactly(42L, 43L, 44L);
    }

    @Test
    void aRangeOfOneSeedIsThatSeed() {
        assertThat(SeedRange.parse("7-7")).containsExactly(7L);
    }

    @Test
    void listsAndRangesMixAndSpacesAroundThemAreIgnored() {
        assertThat(SeedRange.parse(" 42 , 50 - 51,7")).containsExactly(42L, 50L, 51L, 7L);
    }

    @Test
    void aLeadingMinusIsANegativeSeedNotARange() {
        assertThat(SeedRange.parse("-3")).containsExactly(-3L);
        assertThat(SeedRange.parse("-3-1")).containsExactly(-3L, -2L, -1L, 0L, 1L);
    }

    @Test
    void emptyPartsOfAListAreSkipped() {
        assertThat(SeedRange.parse("1,,2,")).containsExactly(1L, 2L);
    }

    @Test
    void aBackwardsRangeIsRefusedAsEmpty() {
        assertThatThrownBy(() -> SeedRange.parse("44-42"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("empty seed range '44-42'");
    }

    @Test
    void somethingThatIsNotANumberIsRefusedQuotingTheWholeList() {
        assertThatThrownBy(() -> SeedRange.parse("1,x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bad seed list '1,x'");
        assertThatThrownBy(() -> SeedRange.parse("1-y")).hasMessage("bad seed list '1-y'");
    }

    @Test
    void aListWithoutAnySeedIsRefused() {
        assertThatThrownBy(() -> SeedRange.parse(" , ")).hasMessage("no seeds in ' , '");
    }
}
