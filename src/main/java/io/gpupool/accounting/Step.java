package io.gpupool.accounting;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/** How a report's window is cut: UTC hours, days, ISO weeks (from Monday) or calendar months. */
public enum Step {
    HOUR, DAY, WEEK, MONTH;

    /** The first boundary of this step after {@code t} (a whole hour). */
    Instant next(Instant t) {
        return switch (this) {
            case HOUR -> t.truncatedTo(ChronoUnit.HOURS).plus(1, ChronoUnit.HOURS);
            case DAY -> t.truncatedTo(ChronoUnit.DAYS).plus(1, ChronoUnit.DAYS);
            case WEEK -> date(t).with(TemporalAdjusters.next(java.time.DayOfWeek.MONDAY)).atStartOfDay()
                    .toInstant(ZoneOffset.UTC);
            case MONTH -> date(t).withDayOfMonth(1).plusMonths(1).atStartOfDay().toInstant(ZoneOffset.UTC);
        };
    }

    private static LocalDate date(Instant t) {
        return t.atZone(ZoneOffset.UTC).toLocalDate();
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
