package io.gpupool.accounting;

import io.gpupool.catalog.CardCatalog;

import io.gpupool.auth.Caller;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.problem.FieldChecks;
import io.gpupool.store.WriterLock;
import io.gpupool.store.row.PriceRateRepository;
import io.gpupool.store.row.PriceRateRow;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The price book: what a GPU-hour costs per card model and tier, from an effective date on. A change
 * is a new row (who, when, why) and never replaces one, so the book is its own audit trail and a
 * report over a past period prices each hour with the rate in force then.
 */
@Singleton
public class PriceBook {
    public static final String ANY = "*";
    static final BigDecimal MAX_RATE = new BigDecimal("1000000");

    /** A rate as the API shows it. */
    public record Rate(long id, String model, String tier, BigDecimal perGpuHour, BigDecimal borrowedPerGpuHour,
                       BigDecimal reservedIdlePerGpuHour, String currency, Instant effectiveFrom, String changedBy,
                       Instant changedAt, String note) {
        static Rate of(PriceRateRow r) {
            return new Rate(r.id(), r.model(), r.tier(), r.perGpuHour(), r.borrowedPerGpuHour(),
                    r.reservedIdlePerGpuHour(), r.currency(), r.effectiveFrom(), r.changedBy(), r.changedAt(), r.note());
        }

        /** The rate for GPU time of this funding (BORROWED, RESERVED_IDLE or within guarantee). */
        BigDecimal forFunding(String funding) {
            if ("BORROWED".equals(funding) && borrowedPerGpuHour != null) {
                return borrowedPerGpuHour;
            }
            if (CostReports.RESERVED_IDLE.equals(funding) && reservedIdlePerGpuHour != null) {
                return reservedIdlePerGpuHour;
            }
            return perGpuHour;
        }
    }

    private final PriceRateRepository rates;
    private final WriterLock writerLock;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;

    PriceBook(PriceRateRepository rates, WriterLock writerLock, TransactionOperations<Connection> tx, Clock clock) {
        this.rates = rates;
        this.writerLock = writerLock;
        this.tx = tx;
        this.clock = clock;
    }

    public List<Rate> all() {
        return rates.findAllOrderById().stream().map(Rate::of).toList();
    }

    /** Adds a change (400 with every reason when it is not valid); it applies from its effective hour on. */
    public Rate change(PriceChange change, Caller caller) {
        Rate checked = checked(change, caller.principal(), clock.instant());
        PriceRateRow row = new PriceRateRow(null, checked.model(), checked.tier(), checked.perGpuHour(),
                checked.borrowedPerGpuHour(), checked.reservedIdlePerGpuHour(), checked.currency(),
                checked.effectiveFrom(), checked.changedBy(), checked.changedAt(), checked.note());
        writerLock.ensureHeld();
        PriceRateRow saved = tx.executeWrite(status -> {
            writerLock.confirm(status.getConnection());
            return rates.save(row);
        });
        return Rate.of(saved);
    }

    /**
     * {@code change} as the rate it becomes (id 0), or a 400 with every reason when it is not valid: the
     * one check of a price change, whether it is posted to the book or read from a prices file.
     */
    public static Rate checked(PriceChange change, String changedBy, Instant changedAt) {
        FieldChecks check = new FieldChecks();
        if (change == null) {
            check.error("body: is required");
            check.throwIfAny("The price change is invalid");
        }
        String given = change.model() == null ? null : change.model().trim();
        if (check.text("model", given)) {
            check.maxLength("model", given, 128);
        }
        // Rates are looked up by the inventory's names, which are the catalog's canonical names.
        String model = CardCatalog.canonical(given);
        String tier = change.tier() == null || change.tier().isBlank() ? ANY : change.tier().trim().toUpperCase(Locale.ROOT);
        if (!ANY.equals(tier) && Arrays.stream(PoolTier.values()).noneMatch(t -> t.name().equals(tier))) {
            check.error("tier: '" + FieldChecks.excerpt(change.tier()) + "' is not one of * or "
                    + String.join(", ", Arrays.stream(PoolTier.values()).map(Enum::name).toList()));
        }
        check.present("perGpuHour", change.perGpuHour());
        rate(check, "perGpuHour", change.perGpuHour());
        rate(check, "borrowedPerGpuHour", change.borrowedPerGpuHour());
        rate(check, "reservedIdlePerGpuHour", change.reservedIdlePerGpuHour());
        String currency = change.currency() == null || change.currency().isBlank() ? "EUR"
                : change.currency().trim().toUpperCase(Locale.ROOT);
        if (!currency.matches("[A-Z]{3}")) {
            check.error("currency: '" + FieldChecks.excerpt(change.currency()) + "' is not a three-letter ISO 4217 code");
        }
        check.maxLength("note", change.note(), 1000);
        Instant effective = null;
        if (check.text("effectiveFrom", change.effectiveFrom())) {
            try {
                effective = Instant.parse(change.effectiveFrom().trim());
                if (effective.isBefore(ReportWindow.EARLIEST) || effective.isAfter(ReportWindow.LATEST)) {
                    check.error("effectiveFrom: " + effective + " is outside the years 2000 to 9999");
                } else if (!effective.equals(effective.truncatedTo(ChronoUnit.HOURS))) {
                    check.error("effectiveFrom: " + effective + " is not a whole hour (a priced hour has one rate)");
                }
            } catch (DateTimeParseException e) {
                check.error("effectiveFrom: '" + FieldChecks.excerpt(change.effectiveFrom())
                        + "' is not an ISO-8601 instant such as 2027-01-01T00:00:00Z");
            }
        }
        check.throwIfAny("The price change is invalid");
        return new Rate(0, model, tier, change.perGpuHour(), change.borrowedPerGpuHour(), change.reservedIdlePerGpuHour(),
                currency, effective, changedBy, changedAt, change.note());
    }

    private static void rate(FieldChecks check, String at, BigDecimal value) {
        if (value != null && (value.signum() < 0 || value.compareTo(MAX_RATE) > 0 || value.scale() > 4)) {
            check.error(at + ": must be between 0 and " + MAX_RATE + " with at most 4 decimals, was "
                    + FieldChecks.excerpt(value.toPlainString()));
        }
    }

    /** The rates in force, for pricing: the most specific match, then the latest effective before the hour. */
    public Prices prices() {
        return new Prices(all());
    }

    /** A snapshot of the book for one report (or a replay: the service's book, or a prices file's rates). */
    public static final class Prices {
        private final List<Rate> rates;

        public Prices(List<Rate> rates) {
            this.rates = new ArrayList<>(rates);
        }

        /** Every rate, in the book's order (a later row wins a tie). */
        public List<Rate> rates() {
            return List.copyOf(rates);
        }

        /** When rates change inside [from, to): the instants a priced period must be cut at. */
        List<Instant> changesBetween(Instant from, Instant to) {
            return rates.stream().map(Rate::effectiveFrom).filter(t -> t.isAfter(from) && t.isBefore(to)).distinct()
                    .sorted().toList();
        }

        /** The rate for {@code model} in {@code tier} at {@code at}: model and tier, model, tier, then anything. */
        Optional<Rate> at(String model, String tier, Instant at) {
            String[][] order = {{model, tier}, {model, ANY}, {ANY, tier}, {ANY, ANY}};
            for (String[] key : order) {
                Rate best = null;
                for (Rate r : rates) {
                    if (r.model().equals(key[0]) && r.tier().equals(key[1]) && !r.effectiveFrom().isAfter(at)
                            && (best == null || !r.effectiveFrom().isBefore(best.effectiveFrom()))) {
                        best = r; // later rows win a tie: the newest change to the same hour
                    }
                }
                if (best != null) {
                    return Optional.of(best);
                }
            }
            return Optional.empty();
        }
    }
}
