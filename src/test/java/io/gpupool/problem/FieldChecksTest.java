package io.gpupool.problem;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Field-level checks: every message names the field, quotes a short safe excerpt, and all are refused at once. */
class FieldChecksTest {

    @Test
    void isTheWholeValueWhenItIsShort() {
        assertThat(FieldChecks.excerpt("gpu-7")).isEqualTo("gpu-7");
    }

    @Test
    void saysNullForAMissingValue() {
        assertThat(FieldChecks.excerpt(null)).isEqualTo("null");
    }

    @Test
    void stopsAfterSixtyFourCharactersAndSaysHowLongTheValueWas() {
        String huge = "x".repeat(100_000);

        String excerpt = FieldChecks.excerpt(huge);

        assertThat(excerpt).startsWith("x".repeat(FieldChecks.EXCERPT) + "…(")
                .endsWith("(100000 characters)")
                .hasSize(FieldChecks.EXCERPT + "…(100000 characters)".length());
    }

    @Test
    void keepsAValueOfExactlySixtyFourCharactersWhole() {
        String exact = "y".repeat(FieldChecks.EXCERPT);

        assertThat(FieldChecks.excerpt(exact)).isEqualTo(exact);
    }

    @Test
    void escapesControlCharactersAndLineSeparatorsSoTheAnswerStaysOneLineOfValidJson() {
        assertThat(FieldChecks.excerpt("a\nb\tc\u0000d\u2028e\u2029f"))
                .isEqualTo("a\\u000ab\\u0009c\\u0000d\\u2028e\\u2029f");
    }

    @Test
    void escapesALoneSurrogateButKeepsAPairedOne() {
        String emoji = "\uD83D\uDE80";

        assertThat(FieldChecks.excerpt("ok" + emoji)).isEqualTo("ok" + emoji);
        assertThat(FieldChecks.excerpt("bad\uD800")).isEqualTo("bad\\ud800");
        assertThat(FieldChecks.excerpt("\uDC00bad")).isEqualTo("\\udc00bad");
    }

    @Test
    void countsASurrogatePairAsOneShownCharacterWhenClipping() {
        String pairs = "\uD83D\uDE80".repeat(3);

        assertThat(FieldChecks.clip(pairs, 2)).isEqualTo("\uD83D\uDE80\uD83D\uDE80…(6 characters)");
    }

    @Test
    void acceptsAsciiAndPairedSurrogates() {
        assertThat(FieldChecks.wellFormed("H100-SXM-80G \uD83D\uDE80")).isTrue();
        assertThat(FieldChecks.wellFormed("")).isTrue();
    }

    @Test
    void refusesAHighSurrogateWithoutItsPairAnywhere() {
        assertThat(FieldChecks.wellFormed("\uD800")).isFalse();
        assertThat(FieldChecks.wellFormed("a\uD800b")).isFalse();
        assertThat(FieldChecks.wellFormed("a\uD800")).isFalse();
    }

    @Test
    void refusesALowSurrogateThatFollowsNoHighOne() {
        assertThat(FieldChecks.wellFormed("\uDC00")).isFalse();
        assertThat(FieldChecks.wellFormed("\uDE80\uD83D")).isFalse();
    }

    @Test
    void lettersDigitsDotsUnderscoresAndDashesUpTo128Pass() {
        FieldChecks checks = new FieldChecks();

        assertThat(checks.identifier("pools[0].id", "dev-shared_2.a")).isTrue();
        assertThat(checks.identifier("pools[1].id", "a" + "b".repeat(127))).isTrue();
        assertThat(checks.errors()).isEmpty();
    }

    @Test
    void aLeadingPunctuationMarkAnOverlongIdAndAMissingIdAreRefusedWithTheirPath() {
        FieldChecks checks = new FieldChecks();

        assertThat(checks.identifier("tenants[0].id", "-nlp")).isFalse();
        assertThat(checks.identifier("tenants[1].id", "a".repeat(129))).isFalse();
        assertThat(checks.identifier("tenants[2].id", null)).isFalse();
        assertThat(checks.identifier("tenants[3].id", "with space")).isFalse();

        assertThat(checks.errors()).hasSize(4);
        assertThat(checks.errors().get(0)).startsWith("tenants[0].id: '-nlp' is not a valid id");
        assertThat(checks.errors().get(1)).startsWith("tenants[1].id: '" + "a".repeat(64) + "…(129 characters)'");
        assertThat(checks.errors().get(2)).startsWith("tenants[2].id: 'null' is not a valid id");
        assertThat(checks.errors().get(3)).startsWith("tenants[3].id: 'with space'");
    }

    @Test
    void aDuplicateIdInOneSectionIsRefusedOnceAndTheKnownIdsGrowByTheSection() {
        FieldChecks checks = new FieldChecks();

        Set<String> known = checks.ids("pools", List.of("training", "dev", "training"), Set.of("elastic"));

        assertThat(known).containsExactlyInAnyOrder("elastic", "training", "dev");
        assertThat(checks.errors()).containsExactly("pools[2].id: duplicate id 'training' in the document");
    }

    @Test
    void anInvalidIdIsNotAlsoReportedAsADuplicate() {
        FieldChecks checks = new FieldChecks();

        checks.ids("nodes", List.of("-x", "-x"), Set.of());

        assertThat(checks.errors()).hasSize(2).allSatisfy(e -> assertThat(e).contains("is not a valid id"));
    }

    @Test
    void aBlankOrMissingTextIsRequired() {
        FieldChecks checks = new FieldChecks();

        assertThat(checks.text("name", "  ")).isFalse();
        assertThat(checks.text("name", null)).isFalse();
        assertThat(checks.text("name", "x")).isTrue();

        assertThat(checks.errors()).containsExactly("name: is required", "name: is required");
    }

    @Test
    void aTextLongerThanItsColumnIsRefusedHereWithBothLengths() {
        FieldChecks checks = new FieldChecks();

        assertThat(checks.maxLength("reason", "abcd", 4)).isTrue();
        assertThat(checks.maxLength("reason", null, 4)).isTrue();
        assertThat(checks.maxLength("reason", "abcde", 4)).isFalse();

        assertThat(checks.errors()).containsExactly("reason: at most 4 characters, got 5");
    }

    @Test
    void aReferenceMustNameSomethingKnown() {
        FieldChecks checks = new FieldChecks();

        checks.reference("quotas[0].pool", "training", Set.of("training"), "pool");
        checks.reference("quotas[1].pool", "nowhere", Set.of("training"), "pool");
        checks.reference("quotas[2].pool", null, Set.of("training"), "pool");

        assertThat(checks.errors()).containsExactly("quotas[1].pool: unknown pool 'nowhere'", "quotas[2].pool: is required");
    }

    @Test
    void numbersOutsideTheirBoundsAreRefusedWithTheValueSeen() {
        FieldChecks checks = new FieldChecks();

        assertThat(checks.nonNegative("guaranteeMilli", 0L)).isTrue();
        assertThat(checks.nonNegative("guaranteeMilli", null)).isTrue();
        assertThat(checks.nonNegative("guaranteeMilli", -1L)).isFalse();
        assertThat(checks.positive("count", 1L)).isTrue();
        assertThat(checks.positive("count", 0L)).isFalse();
        assertThat(checks.positive("count", null)).isFalse();
        assertThat(checks.range("priority", 0, 0, 1000)).isTrue();
        assertThat(checks.range("priority", 1000, 0, 1000)).isTrue();
        assertThat(checks.range("priority", 1001, 0, 1000)).isFalse();
        assertThat(checks.range("priority", -1, 0, 1000)).isFalse();
        checks.present("ttl", null);
        checks.present("ttl", "PT1H");

        assertThat(checks.errors()).containsExactly(
                "guaranteeMilli: must be >= 0, was -1",
                "count: must be > 0, was 0",
                "count: must be > 0, was null",
                "priority: must be between 0 and 1000, was 1001",
                "priority: must be between 0 and 1000, was -1",
                "ttl: is required");
    }

    @Test
    void nothingFoundMeansNoRefusal() {
        new FieldChecks().throwIfAny("Fleet document");
    }

    @Test
    void everyErrorIsRefusedAtOnceAsInvalidInputCountingThemAndQuotingTheFirst() {
        FieldChecks checks = new FieldChecks();
        checks.error("nodes[0].id: is required");
        checks.error("nodes[1].gpus: must be > 0, was 0");

        assertThatThrownBy(() -> checks.throwIfAny("Fleet document"))
                .isInstanceOfSatisfying(ProblemException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProblemException.Kind.INVALID);
                    assertThat(e.getMessage()).isEqualTo("Fleet document: 2 error(s); first: nodes[0].id: is required");
                    assertThat(e.errors()).containsExactly("nodes[0].id: is required", "nodes[1].gpus: must be > 0, was 0");
                });
    }

    @Test
    void theErrorsListHandedOutCannotChangeTheChecks() {
        FieldChecks checks = new FieldChecks();
        checks.error("a");

        assertThatThrownBy(() -> checks.errors().add("b")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(checks.errors()).containsExactly("a");
    }

    @Test
    void aNotFoundProblemQuotesOnlyAnExcerptOfAHugeId() {
        ProblemException e = ProblemException.notFound("lease", "L".repeat(10_000));

        assertThat(e.kind()).isEqualTo(ProblemException.Kind.NOT_FOUND);
        assertThat(e.getMessage()).startsWith("Unknown lease '" + "L".repeat(64) + "…(10000 characters)'");
    }
}
