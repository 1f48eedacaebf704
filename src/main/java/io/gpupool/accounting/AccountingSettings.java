package io.gpupool.accounting;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.Locale;

/**
 * Accounting configuration: how far back a report may look ({@code gpupool.accounting.retention},
 * 400 days) and who pays for reserved capacity nobody used ({@code
 * gpupool.accounting.reserved-idle-payer}: {@code guarantee-holders}, {@code users} or {@code platform};
 * docs/reports.md, "Who pays for idle reserved capacity").
 */
@Singleton
public class AccountingSettings {
    /** Who is charged for the idle capacity of CRITICAL_RESERVED pools. */
    public enum IdlePayer {
        /** The tenants with a guarantee in the pool, in proportion to their guaranteed GPUs. */
        GUARANTEE_HOLDERS,
        /** The tenants that used the pool in the same bucket, in proportion to their GPU time there. */
        USERS,
        /** Nobody: a platform line. */
        PLATFORM
    }

    /** The tenant name the platform's own costs are shown under. */
    public static final String PLATFORM = "(platform)";

    private final Duration retention;
    private final IdlePayer idlePayer;

    AccountingSettings(@Value("${gpupool.accounting.retention:400d}") Duration retention,
                       @Value("${gpupool.accounting.reserved-idle-payer:guarantee-holders}") String idlePayer) {
        this.retention = retention;
        try {
            this.idlePayer = IdlePayer.valueOf(idlePayer.trim().replace('-', '_').toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("gpupool.accounting.reserved-idle-payer: '" + idlePayer
                    + "' is not one of guarantee-holders, users, platform", e);
        }
    }

    public Duration retention() {
        return retention;
    }

    public IdlePayer idlePayer() {
        return idlePayer;
    }
}
