package io.gpupool.accounting;

import io.gpupool.accounting.AccountingSettings.IdlePayer;
import io.gpupool.accounting.PriceBook.Prices;
import io.gpupool.accounting.PriceBook.Rate;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.row.LedgerEntryRow;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * How {@link CostPricing} turns GPU time into cost, on ledger entries held in memory and a tenancy
 * built by hand (acme with teams vision and speech, org products; pools training, inference and the
 * CRITICAL_RESERVED pools critical, with guarantees, and critical-iad, without). Every amount is
 * worked out by hand in the test that asserts it.
 */
class CostPricingTest {
    static final Instant T0 = Instant.parse("2027-03-01T00:00:00Z");
    static final String H100 = "H100-SXM-80G";
    static final String A100 = "A100-SXM-80G";
    static final String L40S = "L40S-PCIE-48G";
    static final String EUR = "EUR";

    static final PoolSnapshot TENANCY = PoolSnapshot.builder()
            .pool(new Pool("training", "Training", PoolTier.TRAINING, "default", false, null))
            .pool(new Pool("inference", "Inference", PoolTier.ELASTIC, "default", true, null))
            .pool(new Pool("critical", "Critical reserved", PoolTier.CRITICAL_RESERVED, "default", false, null))
            .pool(new Pool("critical-iad", "Critical reserved (Ashburn)", PoolTier.CRITICAL_RESERVED, "default", false, null))
            .tenant(new Tenant("acme", "Acme", null, "CC-4100"))
            .tenant(new Tenant("vision", "Vision", "acme", null))
            .tenant(new Tenant("speech", "Speech", "acme", "CC-4200"))
            .tenant(new Tenant("products", "Products", null, "CC-9000"))
            // critical's A100s: vision holds 3; speech 1 for any model and 2 for A100 (weight 2, the larger);
            // products' guarantee is for another model and acme's is empty: neither pays for idle A100s
            .quota(new Quota("vision", "critical", A100, 3, 0, 0))
            .quota(new Quota("speech", "critical", Quota.ANY_MODEL, 1, 0, 0))
            .quota(new Quota("speech", "critical", A100, 2, 0, 0))
            .quota(new Quota("products", "critical", H100, 4, 0, 0))
            .quota(new Quota("acme", "critical", Quota.ANY_MODEL, 0, 0, 0))
            .build();

    // ---- fixtures -------------------------------------------------------------------------------

    static Instant at(double hours) {
        return T0.plus(Duration.ofMillis(Math.round(hours * 3_600_000)));
    }

    /** A rate as the price book keeps it, checked as a posted change is. */
    static Rate rate(String model, String tier, String perGpuHour, String borrowed, String reservedIdle, String currency,
                     Instant effectiveFrom) {
        return PriceBook.checked(new PriceChange(model, tier, new BigDecimal(perGpuHour),
                borrowed == null ? null : new BigDecimal(borrowed), reservedIdle == null ? null : new BigDecimal(reservedIdle),
                currency, effectiveFrom.toString(), null), "finance", T0);
    }

    static Rate rate(String model, String tier, String perGpuHour, Instant effectiveFrom) {
        return rate(model, tier, perGpuHour, null, null, EUR, effectiveFrom);
    }

    static Prices prices(Rate... rates) {
        return new Prices(List.of(rates));
    }

    /** A lease share of {@code milli} on {@code device}, opened at {@code from} and closed at {@code to}. */
    static List<LedgerEntryRow> held(String lease, String tenant, String pool, String model, String funding,
                                     String device, int milli, Instant from, Instant to) {
        return List.of(
                new LedgerEntryRow(from.toEpochMilli(), LedgerEntryRow.LEASE, milli, device, model, pool, lease, tenant,
                        "TRAINING", null, funding, null, "ACTIVE"),
                new LedgerEntryRow(to.toEpochMilli(), LedgerEntryRow.LEASE, -milli, device, model, pool, lease, tenant,
                        "TRAINING", null, funding, null, "RELEASED"));
    }

    static List<LedgerEntryRow> held(String tenant, String pool, String model, Instant from, Instant to, String... devices) {
        List<LedgerEntryRow> out = new ArrayList<>();
        for (String d : devices) {
            out.addAll(held(tenant + "-" + from, tenant, pool, model, LedgerEntryRow.GUARANTEE, d, 1000, from, to));
        }
        return out;
    }

    /** A card's capacity in {@code pool} and {@code health}, from a day before the window on. */
    static LedgerEntryRow card(String device, String pool, String model, String health) {
        return new LedgerEntryRow(T0.minus(Duration.ofDays(1)).toEpochMilli(), LedgerEntryRow.DEVICE, 1000, device, model,
                pool, null, null, null, null, null, null, health);
    }

    /** Four A100s in critical, healthy all along. */
    static List<LedgerEntryRow> criticalA100s() {
        List<LedgerEntryRow> out = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            out.add(card("crit-a100-0" + i, "critical", A100, "HEALTHY"));
        }
        return out;
    }

    @SafeVarargs
    static InMemoryLedger ledger(List<LedgerEntryRow>... parts) {
        return new InMemoryLedger(Arrays.stream(parts).flatMap(List::stream).toList());
    }

    static CostReport cost(Prices prices, IdlePayer payer, ReportWindow window, List<Dimension> dims, Set<String> tenants,
                           InMemoryLedger ledger) {
        return new CostPricing(prices, payer).cost(window, dims, tenants, TENANCY, ledger);
    }

    static ReportWindow hours(int hours, Step step) {
        return ReportWindow.of(T0, at(hours), step);
    }

    static Map<String, String> group(String... keyValues) {
        Map<String, String> g = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            g.put(keyValues[i], keyValues[i + 1]);
        }
        return g;
    }

    static BigDecimal d(String value) {
        return new BigDecimal(value);
    }

    // ---- rates in force ---------------------------------------------------------------------------

    @Test
    void eachSideOfARateChangeInsideABucketIsPricedWithItsOwnRate() {
        Prices prices = prices(rate(H100, "TRAINING", "2.00", Instant.parse("2027-01-01T00:00:00Z")),
                rate(H100, "TRAINING", "3.00", at(8)),
                rate(H100, "TRAINING", "9.00", Instant.parse("2027-03-02T00:00:00Z")));
        InMemoryLedger ledger = ledger(held("vision", "training", H100, at(6), at(10),
                "fra-h100-01-gpu0", "fra-h100-01-gpu1", "fra-h100-01-gpu2", "fra-h100-01-gpu3"));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(12, Step.DAY), List.of(Dimension.TENANT), null, ledger);

        // 4 GPUs × 2 h × 2.00 before 08:00 + 4 GPUs × 2 h × 3.00 after; the change of the next day plays no part
        assertThat(report.rows()).extracting(CostReport.Row::bucket, CostReport.Row::group, CostReport.Row::currency,
                CostReport.Row::gpuHours, CostReport.Row::cost, CostReport.Row::unpricedGpuHours)
                .containsExactly(tuple(T0, group("tenant", "vision"), EUR, d("16.000000"), d("40.00"), d("0.000000")));
        assertThat(report.totals()).containsExactly(new CostReport.Total(EUR, d("16.000000"), d("40.00"), d("0.000000")));
        assertThat(report.step()).isEqualTo("day");
        assertThat(report.groupBy()).containsExactly("tenant");
    }

    @Test
    void timeIsCountedInTheBucketsItWasHeldIn() {
        Prices prices = prices(rate(H100, "TRAINING", "2.00", Instant.parse("2027-01-01T00:00:00Z")));
        InMemoryLedger ledger = ledger(held("vision", "training", H100, at(0.5), at(2.5), "fra-h100-01-gpu0"));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(4, Step.HOUR), List.of(), null, ledger);

        assertThat(report.rows()).extracting(CostReport.Row::bucket, CostReport.Row::gpuHours, CostReport.Row::cost)
                .containsExactly(tuple(at(0), d("0.500000"), d("1.00")), tuple(at(1), d("1.000000"), d("2.00")),
                        tuple(at(2), d("0.500000"), d("1.00")));
        assertThat(report.rows()).allSatisfy(r -> assertThat(r.group()).isEmpty());
    }

    @Test
    void theMostSpecificRateWinsOverANewerLessSpecificOne() {
        Instant january = Instant.parse("2027-01-01T00:00:00Z");
        Instant february = Instant.parse("2027-02-01T00:00:00Z");
        Prices prices = prices(rate(H100, "TRAINING", "2.50", january), rate(H100, "*", "2.00", january),
                rate("*", "TRAINING", "1.50", january), rate("*", "*", "1.00", february));
        InMemoryLedger ledger = ledger(
                held("vision", "training", H100, at(0), at(1), "fra-h100-01-gpu0"),
                held("vision", "inference", H100, at(0), at(1), "iad-h100-01-gpu0"),
                held("vision", "training", A100, at(0), at(1), "fra-a100-01-gpu0"),
                held("vision", "inference", L40S, at(0), at(1), "iad-l40s-01-gpu0"));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(1, Step.HOUR),
                List.of(Dimension.MODEL, Dimension.POOL), null, ledger);

        assertThat(report.rows()).extracting(CostReport.Row::group, CostReport.Row::cost).containsExactly(
                tuple(group("model", A100, "pool", "training"), d("1.50")), // any model in TRAINING
                tuple(group("model", H100, "pool", "inference"), d("2.00")), // H100 in any tier
                tuple(group("model", H100, "pool", "training"), d("2.50")), // H100 in TRAINING
                tuple(group("model", L40S, "pool", "inference"), d("1.00"))); // anything, anywhere
    }

    @Test
    void ofTwoRatesForTheSameHourTheLaterRowInTheBookWins() {
        Instant january = Instant.parse("2027-01-01T00:00:00Z");
        Prices prices = prices(rate(H100, "TRAINING", "2.00", january), rate(H100, "TRAINING", "2.20", january),
                rate(H100, "TRAINING", "5.00", Instant.parse("2027-04-01T00:00:00Z")));
        InMemoryLedger ledger = ledger(held("vision", "training", H100, at(0), at(1), "fra-h100-01-gpu0"));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(1, Step.HOUR), List.of(), null, ledger);

        assertThat(report.rows()).singleElement().satisfies(r -> assertThat(r.cost()).isEqualTo(d("2.20")));
    }

    @Test
    void timeBeforeAnyRateIsInForceIsUnpricedInARowWithoutCurrencyListedAfterThePricedOnes() {
        Prices prices = prices(rate(H100, "TRAINING", "2.00", at(2)));
        InMemoryLedger ledger = ledger(held("vision", "training", H100, at(0), at(4), "fra-h100-01-gpu0", "fra-h100-01-gpu1"));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(6, Step.DAY), List.of(Dimension.TENANT), null, ledger);

        assertThat(report.rows()).extracting(CostReport.Row::currency, CostReport.Row::gpuHours, CostReport.Row::cost,
                CostReport.Row::unpricedGpuHours).containsExactly(
                tuple(EUR, d("4.000000"), d("8.00"), d("0.000000")),
                tuple(null, d("4.000000"), d("0.00"), d("4.000000")));
        assertThat(report.totals()).extracting(CostReport.Total::currency).containsExactly(EUR, null);
    }

    @Test
    void borrowedTimeCostsTheBorrowedRateAndFallsBackToTheBaseRateWhereThereIsNone() {
        Instant january = Instant.parse("2027-01-01T00:00:00Z");
        Prices prices = prices(rate(H100, "TRAINING", "2.00", "3.00", null, EUR, january),
                rate(A100, "TRAINING", "1.50", january));
        InMemoryLedger ledger = ledger(
                held("s1", "speech", "training", H100, LedgerEntryRow.BORROWED, "fra-h100-01-gpu0", 1000, at(0), at(1)),
                held("s1", "speech", "training", H100, LedgerEntryRow.BORROWED, "fra-h100-01-gpu1", 1000, at(0), at(1)),
                held("s2", "speech", "training", A100, LedgerEntryRow.BORROWED, "fra-a100-01-gpu0", 1000, at(0), at(1)),
                held("s3", "speech", "training", H100, LedgerEntryRow.GUARANTEE, "fra-h100-02-gpu0", 1000, at(0), at(1)));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(1, Step.HOUR),
                List.of(Dimension.MODEL, Dimension.FUNDING), null, ledger);

        assertThat(report.rows()).extracting(CostReport.Row::group, CostReport.Row::cost).containsExactly(
                tuple(group("model", A100, "funding", "BORROWED"), d("1.50")),
                tuple(group("model", H100, "funding", "BORROWED"), d("6.00")),
                tuple(group("model", H100, "funding", "GUARANTEE"), d("2.00")));
    }

    @Test
    void eachCurrencyHasItsOwnRowsAndTotal() {
        Instant january = Instant.parse("2027-01-01T00:00:00Z");
        Prices prices = prices(rate(H100, "*", "2.00", january), rate(L40S, "*", "1.10", null, null, "usd", january));
        InMemoryLedger ledger = ledger(held("vision", "training", H100, at(0), at(1), "fra-h100-01-gpu0"),
                held("vision", "inference", L40S, at(0), at(2), "iad-l40s-01-gpu0"));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(2, Step.DAY), List.of(Dimension.TENANT), null, ledger);

        assertThat(report.rows()).extracting(CostReport.Row::currency, CostReport.Row::cost)
                .containsExactly(tuple(EUR, d("2.00")), tuple("USD", d("2.20")));
        assertThat(report.totals()).containsExactly(new CostReport.Total(EUR, d("1.000000"), d("2.00"), d("0.000000")),
                new CostReport.Total("USD", d("2.000000"), d("2.20"), d("0.000000")));
    }

    @Test
    void centsAreRoundedHalfEvenOnceARowOrTotalIsSummedNotPerPiece() {
        Prices prices = prices(rate(L40S, "*", "0.0050", Instant.parse("2027-01-01T00:00:00Z")));
        InMemoryLedger ledger = ledger(held("vision", "inference", L40S, at(0), at(1), "iad-l40s-01-gpu0"),
                held("speech", "inference", L40S, at(0), at(1), "iad-l40s-01-gpu1", "iad-l40s-01-gpu2"),
                held("s-half", "speech", "inference", L40S, LedgerEntryRow.GUARANTEE, "iad-l40s-01-gpu3", 500, at(0), at(0.25)));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(1, Step.HOUR), List.of(Dimension.TENANT), null, ledger);

        // speech: 2 GPU-hours + half a GPU for a quarter hour = 2.125 GPU-hours × 0.005 = 0.010625 → 0.01
        // vision: 1 GPU-hour × 0.005 = 0.005 → 0.00 (half to even); all: 0.015625 → 0.02, not 0.01 + 0.00
        assertThat(report.rows()).extracting(CostReport.Row::group, CostReport.Row::gpuHours, CostReport.Row::cost)
                .containsExactly(tuple(group("tenant", "speech"), d("2.125000"), d("0.01")),
                        tuple(group("tenant", "vision"), d("1.000000"), d("0.00")));
        assertThat(report.totals()).singleElement().satisfies(t -> assertThat(t.cost()).isEqualTo(d("0.02")));
    }

    @Test
    void aPoolTheTenancyNoLongerKnowsIsPricedAtItsModelsRateForAnyTier() {
        Instant january = Instant.parse("2027-01-01T00:00:00Z");
        Prices prices = prices(rate(H100, "TRAINING", "2.50", january), rate(H100, "*", "2.00", january));
        InMemoryLedger ledger = ledger(held("vision", "retired-pool", H100, at(0), at(1), "old-h100-gpu0"));

        CostReport report = cost(prices, IdlePayer.GUARANTEE_HOLDERS, hours(1, Step.HOUR),
                List.of(Dimension.POOL, Dimension.TIER), null, ledger);

        assertThat(report.rows()).singleElement().satisfies(r -> {
            assertThat(r.group()).isEqualTo(group("pool", "retired-pool", "tier", null));
            assertThat(r.cost()).isEqualTo(d("2.00"));
        });
    }

    @Test
    void noGpuTimeGivesNoRowsAndNoTotals() {
        CostReport report = cost(prices(rate("*", "*", "1.00", T0)), IdlePayer.USERS, hours(24, Step.DAY),
                List.of(Dimension.TENANT), null, ledger());

        assertThat(report.rows()).isEmpty();
        assertThat(report.totals()).isEmpty();
        assertThat(report.from()).isEqualTo(T0);
        assertThat(report.to()).isEqualTo(at(24));
        assertThat(report.reservedIdlePayer()).isEqualTo("users");
    }

    // ---- idle reserved capacity ----------------------------------------------------------------

    static Prices reservedRates() {
        return prices(rate("*", "CRITICAL_RESERVED", "4.00", null, "0.50", EUR, Instant.parse("2027-01-01T00:00:00Z")));
    }

    @Test
    void idleReservedCapacityIsSharedByGuaranteedGpusOfTheCardsModelTakingATenantsLargerGuarantee() {
        InMemoryLedger ledger = ledger(criticalA100s(), held("vision", "critical", A100, at(0), at(3), "crit-a100-00"));

        CostReport report = cost(reservedRates(), IdlePayer.GUARANTEE_HOLDERS, hours(6, Step.DAY),
                List.of(Dimension.TENANT, Dimension.FUNDING), null, ledger);

        // idle: 4 GPUs × 6 h − 3 GPU-hours held = 21 GPU-hours at 0.50, vision 3/5, speech 2/5
        assertThat(report.rows()).extracting(CostReport.Row::group, CostReport.Row::gpuHours, CostReport.Row::cost)
                .containsExactly(
                        tuple(group("tenant", "speech", "funding", "RESERVED_IDLE"), d("8.400000"), d("4.20")),
                        tuple(group("tenant", "vision", "funding", "GUARANTEE"), d("3.000000"), d("12.00")),
                        tuple(group("tenant", "vision", "funding", "RESERVED_IDLE"), d("12.600000"), d("6.30")));
        assertThat(report.totals()).containsExactly(new CostReport.Total(EUR, d("24.000000"), d("22.50"), d("0.000000")));
        assertThat(report.reservedIdlePayer()).isEqualTo("guarantee-holders");
    }

    @Test
    void onlyHealthyOrDegradedCapacityOfAReservedPoolIsIdleAndOtherPoolsIdleCapacityIsNeverCharged() {
        InMemoryLedger ledger = ledger(List.of(card("crit-a100-00", "critical", A100, "HEALTHY"),
                card("crit-a100-01", "critical", A100, "HEALTHY"), card("crit-a100-02", "critical", A100, "DEGRADED"),
                card("crit-a100-03", "critical", A100, "UNHEALTHY"), card("fra-h100-01-gpu0", "training", H100, "HEALTHY")));
        Prices prices = prices(rate("*", "*", "3.00", null, "0.50", EUR, Instant.parse("2027-01-01T00:00:00Z")));

        CostReport report = cost(prices, IdlePayer.PLATFORM, hours(6, Step.DAY), List.of(Dimension.TENANT, Dimension.ORG,
                Dimension.COST_CENTER, Dimension.POOL, Dimension.TIER, Dimension.MODEL, Dimension.FUNDING, Dimension.KIND),
                null, ledger);

        // 3 schedulable A100s × 6 h × 0.50; the training pool's idle H100 is nobody's cost
        Map<String, String> platform = group("tenant", "(platform)", "org", "(platform)", "costCenter", null,
                "pool", "critical", "tier", "CRITICAL_RESERVED", "model", A100, "funding", "RESERVED_IDLE", "kind", null);
        assertThat(report.rows()).extracting(CostReport.Row::group, CostReport.Row::gpuHours, CostReport.Row::cost)
                .containsExactly(tuple(platform, d("18.000000"), d("9.00")));
        assertThat(report.reservedIdlePayer()).isEqualTo("platform");
    }

    @Test
    void withUsersPayingIdleCapacityIsSharedByTheirGpuTimeInTheSamePieceBetweenRateChanges() {
        Instant january = Instant.parse("2027-01-01T00:00:00Z");
        Prices prices = prices(rate("*", "CRITICAL_RESERVED", "4.00", null, "0.50", EUR, january),
                rate("*", "CRITICAL_RESERVED", "4.00", null, "1.00", EUR, at(3)));
        InMemoryLedger ledger = ledger(criticalA100s(),
                held("vision", "critical", A100, at(0), at(6), "crit-a100-00"),
                held("speech", "critical", A100, at(0), at(3), "crit-a100-01", "crit-a100-02"),
                held("speech", "critical", A100, at(3), at(6), "crit-a100-03"));

        CostReport report = cost(prices, IdlePayer.USERS, hours(6, Step.DAY), List.of(Dimension.TENANT, Dimension.FUNDING),
                null, ledger);

        // 00:00–03:00: 1 idle GPU × 3 h at 0.50, vision 1 h (its 3 GPU-hours) and speech 2 h (its 6)
        // 03:00–06:00: 2 idle GPUs × 3 h at 1.00, vision 3 h and speech 3 h (3 GPU-hours each)
        assertThat(report.rows()).extracting(CostReport.Row::group, CostReport.Row::gpuHours, CostReport.Row::cost)
                .containsExactly(
                        tuple(group("tenant", "speech", "funding", "GUARANTEE"), d("9.000000"), d("36.00")),
                        tuple(group("tenant", "speech", "funding", "RESERVED_IDLE"), d("5.000000"), d("4.00")),
                        tuple(group("tenant", "vision", "funding", "GUARANTEE"), d("6.000000"), d("24.00")),
                        tuple(group("tenant", "vision", "funding", "RESERVED_IDLE"), d("4.000000"), d("3.50")));
        assertThat(report.reservedIdlePayer()).isEqualTo("users");
    }

    @Test
    void aTenantScopedReportKeepsItsShareOfIdleCapacityAndNeverShowsOthersOrThePlatform() {
        InMemoryLedger ledger = ledger(criticalA100s(), held("vision", "critical", A100, at(0), at(3), "crit-a100-00"));

        CostReport speech = cost(reservedRates(), IdlePayer.GUARANTEE_HOLDERS, hours(6, Step.DAY),
                List.of(Dimension.TENANT, Dimension.FUNDING), Set.of("speech"), ledger);
        CostReport vision = cost(reservedRates(), IdlePayer.PLATFORM, hours(6, Step.DAY),
                List.of(Dimension.TENANT, Dimension.FUNDING), Set.of("vision"), ledger);

        assertThat(speech.rows()).extracting(CostReport.Row::group, CostReport.Row::cost)
                .containsExactly(tuple(group("tenant", "speech", "funding", "RESERVED_IDLE"), d("4.20")));
        assertThat(vision.rows()).extracting(CostReport.Row::group, CostReport.Row::cost)
                .containsExactly(tuple(group("tenant", "vision", "funding", "GUARANTEE"), d("12.00")));
    }

    @Test
    void idleCapacityNobodyHoldsAGuaranteeForIsThePlatformsAndTeamsRollUpToTheirOrg() {
        InMemoryLedger ledger = ledger(List.of(card("iad-t4-00", "critical-iad", "T4-PCIE-16G", "HEALTHY")), criticalA100s(),
                held("vision", "critical", A100, at(0), at(3), "crit-a100-00"));

        CostReport report = cost(reservedRates(), IdlePayer.GUARANTEE_HOLDERS, hours(6, Step.DAY),
                List.of(Dimension.ORG, Dimension.COST_CENTER), null, ledger);

        // critical-iad's T4 is guaranteed to nobody: 6 h × 0.50 to the platform;
        // vision (no cost center of its own: acme's) and speech (CC-4200) both roll up to acme
        assertThat(report.rows()).extracting(CostReport.Row::group, CostReport.Row::gpuHours, CostReport.Row::cost)
                .containsExactly(
                        tuple(group("org", "(platform)", "costCenter", null), d("6.000000"), d("3.00")),
                        tuple(group("org", "acme", "costCenter", "CC-4100"), d("15.600000"), d("18.30")),
                        tuple(group("org", "acme", "costCenter", "CC-4200"), d("8.400000"), d("4.20")));
    }
}
