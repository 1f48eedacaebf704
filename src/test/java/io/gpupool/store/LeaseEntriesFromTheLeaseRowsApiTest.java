package io.gpupool.store;

import io.gpupool.store.row.LedgerEntryRow;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease event writes no ledger row (migration V19): the lease's entries are read from its rows. The
 * commit that starts a lease numbers it, the commit that ends it numbers it again, higher, and the
 * ledger shows the opening at its start and the closing at its end, attributed as the lease is. The
 * rollup worker is off here, so every entry is in the tail a report reads raw.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@Property(name = "gpupool.accounting.rollup.enabled", value = "false")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseEntriesFromTheLeaseRowsApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LedgerStore ledger;
    @Inject
    TransactionOperations<Connection> tx;
    Api api;
    String vision;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
    }

    @Test
    void aLeaseStartedAndEndedWritesNoLedgerRowYetTheLedgerShowsItsStartAndEnd() {
        long storedBefore = count("SELECT COUNT(*) FROM ledger_entry");
        Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1), vision);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        String lease = placed.body().at("/lease/id").asText();
        long[] opened = sequences(lease);
        assertThat(opened[0]).as("opened_seq").isPositive();
        assertThat(opened[1]).as("closed_seq: not ended").isZero();
        assertThat(opened[2]).as("ledger_seq").isEqualTo(opened[0]);

        Reply released = api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision);
        assertThat(released.status()).as(released.body().toString()).isEqualTo(200);
        long[] closed = sequences(lease);
        assertThat(closed[0]).as("opened_seq unchanged").isEqualTo(opened[0]);
        assertThat(closed[1]).as("closed by a later commit").isGreaterThan(opened[0]);
        assertThat(closed[2]).as("ledger_seq follows the latest").isEqualTo(closed[1]);

        assertThat(count("SELECT COUNT(*) FROM ledger_entry")).as("no row stored for the lease").isEqualTo(storedBefore);
        List<LedgerEntryRow> entries = ledger.leaseEntries().stream().filter(e -> lease.equals(e.leaseId())).toList();
        String device = placed.body().at("/lease/shares/0/deviceId").asText();
        long start = java.time.Instant.parse(placed.body().at("/lease/createdAt").asText()).toEpochMilli();
        assertThat(entries).hasSize(2);
        assertThat(entries.get(0).deltaMilli()).isPositive();
        assertThat(entries.get(0).atMs()).isEqualTo(start);
        assertThat(entries.get(1).deltaMilli()).isEqualTo(-entries.get(0).deltaMilli());
        assertThat(entries.get(1).atMs()).isGreaterThanOrEqualTo(start);
        assertThat(entries.get(1).state()).isEqualTo("RELEASED");
        assertThat(entries).allSatisfy(e -> {
            assertThat(e.deviceId()).isEqualTo(device);
            assertThat(e.tenantId()).isEqualTo("vision");
            assertThat(e.model()).isNotBlank().isNotEqualTo("unknown");
        });
    }

    @Test
    void eachCommitThatStartsOrEndsLeasesNumbersThemAboveEveryEarlierCommit() {
        List<Long> numbers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1), vision);
            assertThat(placed.status()).isEqualTo(201);
            String lease = placed.body().at("/lease/id").asText();
            numbers.add(sequences(lease)[0]);
            assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision).status()).isEqualTo(200);
            numbers.add(sequences(lease)[1]);
        }
        assertThat(numbers).isSorted().doesNotHaveDuplicates();
    }

    private long[] sequences(String lease) {
        return tx.executeRead(status -> {
            try (var s = status.getConnection().prepareStatement(
                    "SELECT opened_seq, closed_seq, ledger_seq FROM lease WHERE id = ?")) {
                s.setString(1, lease);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
                }
            }
        });
    }

    private long count(String sql) {
        return tx.executeRead(status -> {
            try (var s = status.getConnection().prepareStatement(sql); ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
