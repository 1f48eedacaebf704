package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.problem.ProblemException;
import io.gpupool.simulation.ReplayMetrics;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/** What the queue, reclamation and fragmentation reports share: groupings, scope, group keys, percentiles. */
class OperatingGroupsTest {
    static final PoolSnapshot TENANCY = PoolSnapshot.builder()
            .pool(new Pool("training", "Training", PoolTier.TRAINING, "default", false, null))
            .pool(new Pool("inference", "Inference", PoolTier.ELASTIC, "default", true, null))
            .tenant(new Tenant("acme", "Acme", null, "CC-4100"))
            .tenant(new Tenant("vision", "Vision", "acme", null))
            .tenant(new Tenant("speech", "Speech", "acme", "CC-4200"))
            .tenant(new Tenant("other-org", "Other", null, null))
            .build();

    // ---- groupings ------------------------------------------------------------------------------

    @Test
    void theGroupingsOfWorkAreTakenInTheOrderGivenEachOnceWhateverTheirCase() {
        assertThat(OperatingGroups.parse(" model , TENANT,priority_class,model", OperatingGroups.OF_WORK, "queues"))
                .containsExactly(Dimension.MODEL, Dimension.TENANT, Dimension.PRIORITY_CLASS);
        assertThat(OperatingGroups.parse("costCenter,tier,org,pool,kind,priorityClass", OperatingGroups.OF_WORK, "queues"))
                .hasSize(6);
    }

    @Test
    void noGroupingMeansOneGroup() {
        assertThat(OperatingGroups.parse(null, OperatingGroups.OF_WORK, "queues")).isEmpty();
        assertThat(OperatingGroups.parse("  ", OperatingGroups.OF_WORK, "reclamation")).isEmpty();
    }

    @Test
    void aLedgerOnlyGroupingIsRefusedForEveryOneGivenNamingTheReportAndWhatItGroupsBy() {
        assertThatThrownBy(() -> OperatingGroups.parse("tenant,funding,lender", OperatingGroups.OF_WORK, "reclamation"))
                .isInstanceOfSatisfying(ProblemException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProblemException.Kind.INVALID);
                    assertThat(e.getMessage()).isEqualTo("The report's grouping is not valid: groupBy: 'funding' has no "
                            + "meaning for the reclamation report; it groups by tenant, org, costCenter, pool, tier, model,"
                            + " kind, priorityClass");
                    assertThat(e.errors()).containsExactly(
                            "groupBy: 'funding' has no meaning for the reclamation report; it groups by tenant, org,"
                                    + " costCenter, pool, tier, model, kind, priorityClass",
                            "groupBy: 'lender' has no meaning for the reclamation report; it groups by tenant, org,"
                                    + " costCenter, pool, tier, model, kind, priorityClass");
                });
    }

    @Test
    void aReportWithFewerGroupingsSaysOnlyThose() {
        assertThatThrownBy(() -> OperatingGroups.parse("tenant", List.of(Dimension.POOL, Dimension.TIER), "fragmentation"))
                .isInstanceOf(ProblemException.class)
                .hasMessage("The report's grouping is not valid: groupBy: 'tenant' has no meaning for the fragmentation"
                        + " report; it groups by pool, tier");
    }

    @Test
    void anUnknownNameIsRefusedAsNoGroupingAtAll() {
        assertThatThrownBy(() -> OperatingGroups.parse("colour", OperatingGroups.OF_WORK, "queues"))
                .isInstanceOf(ProblemException.class)
                .hasMessageStartingWith("The report's grouping is not valid: groupBy: 'colour' is not one of tenant, org,");
    }

    // ---- scope ----------------------------------------------------------------------------------

    @Test
    void adminsAndViewersSeeEveryTenant() {
        assertThat(OperatingGroups.scope(new Caller("t1", "ops", Role.ADMIN, null), TENANCY)).isNull();
        assertThat(OperatingGroups.scope(new Caller("t2", "finance", Role.VIEWER, null), TENANCY)).isNull();
    }

    @Test
    void aTenantTokenSeesItsTenantAndItsTeamsOnly() {
        assertThat(OperatingGroups.scope(new Caller("t3", "acme-ci", Role.TENANT, "acme"), TENANCY))
                .containsExactly("acme", "speech", "vision");
        assertThat(OperatingGroups.scope(new Caller("t4", "vision-ci", Role.TENANT, "vision"), TENANCY))
                .containsExactly("vision");
    }

    @Test
    void aTenantTokenWhoseTenantIsGoneSeesNothingRatherThanEverything() {
        assertThat(OperatingGroups.scope(new Caller("t5", "old-ci", Role.TENANT, "disbanded-team"), TENANCY))
                .isNotNull().isEmpty();
    }

    // ---- group keys -----------------------------------------------------------------------------

    @Test
    void aKeyReadsEachDimensionFromItsLedgerColumnAndTheCurrentTenancy() {
        Map<Column, String> raw = new HashMap<>();
        raw.put(Column.TENANT, "vision");
        raw.put(Column.POOL, "training");
        raw.put(Column.MODEL, "H100-SXM-80G");
        raw.put(Column.KIND, "TRAINING");
        List<Dimension> dims = List.of(Dimension.TENANT, Dimension.ORG, Dimension.COST_CENTER, Dimension.POOL,
                Dimension.TIER, Dimension.MODEL, Dimension.KIND, Dimension.PRIORITY_CLASS);

        List<String> key = OperatingGroups.key(dims, raw::get, TENANCY);

        // vision has no cost center of its own: its org's; no priority class was asked for
        assertThat(key).containsExactly("vision", "acme", "CC-4100", "training", "TRAINING", "H100-SXM-80G", "TRAINING", null);
        assertThat(OperatingGroups.group(dims, key)).containsExactly(entry("tenant", "vision"), entry("org", "acme"),
                entry("costCenter", "CC-4100"), entry("pool", "training"), entry("tier", "TRAINING"),
                entry("model", "H100-SXM-80G"), entry("kind", "TRAINING"), entry("priorityClass", null));
    }

    @Test
    void aTeamsOwnCostCenterWinsAndAPoolOrTenantTheTenancyNoLongerHasKeepsItsNameWithoutTier() {
        Map<Column, String> raw = Map.of(Column.TENANT, "speech", Column.POOL, "retired-pool");
        assertThat(OperatingGroups.key(List.of(Dimension.COST_CENTER, Dimension.POOL, Dimension.TIER), raw::get, TENANCY))
                .containsExactly("CC-4200", "retired-pool", null);
        Map<Column, String> gone = Map.of(Column.TENANT, "disbanded-team");
        assertThat(OperatingGroups.key(List.of(Dimension.TENANT, Dimension.ORG, Dimension.COST_CENTER), gone::get, TENANCY))
                .containsExactly("disbanded-team", "disbanded-team", null);
    }

    @Test
    void noDimensionsMakeTheEmptyKeyAndGroup() {
        assertThat(OperatingGroups.key(List.of(), c -> "x", TENANCY)).isEmpty();
        assertThat(OperatingGroups.group(List.of(), List.of())).isEmpty();
    }

    // ---- percentiles and units ------------------------------------------------------------------

    @Test
    void percentilesAreByNearestRankInSecondsNeverInterpolated() {
        long[] waits = {100, 200, 300, 400};

        assertThat(OperatingGroups.percentileSeconds(waits, 50)).isEqualTo(new BigDecimal("0.200"));
        assertThat(OperatingGroups.percentileSeconds(waits, 51)).isEqualTo(new BigDecimal("0.300"));
        assertThat(OperatingGroups.percentileSeconds(waits, 75)).isEqualTo(new BigDecimal("0.300"));
        assertThat(OperatingGroups.percentileSeconds(waits, 90)).isEqualTo(new BigDecimal("0.400"));
        assertThat(OperatingGroups.percentileSeconds(waits, 100)).isEqualTo(new BigDecimal("0.400"));
        assertThat(OperatingGroups.percentileSeconds(waits, 0)).as("rank 0 is the first").isEqualTo(new BigDecimal("0.100"));
    }

    @Test
    void oneWaitIsEveryPercentileAndNoWaitIsNone() {
        long[] one = {1_800_000};
        for (double p : new double[]{0, 50, 90, 99, 100}) {
            assertThat(OperatingGroups.percentileSeconds(one, p)).isEqualTo(new BigDecimal("1800.000"));
        }
        assertThat(OperatingGroups.percentileSeconds(new long[0], 50)).isNull();
    }

    @Test
    void theWaitPercentilesAreTheOnesGpupoolSimulateReports() {
        long[][] samples = {{0}, {0, 1_800_000, 1_800_001}, {5, 5, 5, 9, 12, 40, 41, 300, 301, 302, 1_000_000},
                java.util.stream.LongStream.rangeClosed(1, 200).map(i -> i * 997).toArray()};
        for (long[] sorted : samples) {
            for (double p : new double[]{1, 50, 90, 99, 99.9, 100}) {
                assertThat(OperatingGroups.percentileSeconds(sorted, p))
                        .as("p%s of %s", p, Arrays.toString(sorted))
                        .isEqualTo(BigDecimal.valueOf((long) ReplayMetrics.percentile(sorted, p), 3));
            }
        }
    }

    @Test
    void unitsAreGpuHoursToSixDecimalsGpusAndSecondsToThree() {
        assertThat(OperatingGroups.gpuHours(3_600_000_000L)).isEqualTo(new BigDecimal("1.000000"));
        assertThat(OperatingGroups.gpuHours(500L * 60_000)).as("half a GPU for a minute").isEqualTo(new BigDecimal("0.008333"));
        assertThat(OperatingGroups.gpus(2_500)).isEqualTo(new BigDecimal("2.500"));
        assertThat(OperatingGroups.seconds(1)).isEqualTo(new BigDecimal("0.001"));
    }
}
