package io.gpupool.governance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.store.row.PolicyHistoryRepository;
import io.gpupool.store.row.PolicyHistoryRow;
import jakarta.inject.Singleton;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;

/**
 * The append-only, hash-chained policy history. Appends happen inside the caller's transaction
 * (with the change they describe) and under the lifecycle's lock, so sequence numbers are dense
 * and each record names its predecessor's hash.
 */
@Singleton
public class PolicyHistory {
    static final String GENESIS = "0".repeat(64);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> LIST = new TypeReference<>() { };

    private final PolicyHistoryRepository rows;

    PolicyHistory(PolicyHistoryRepository rows) {
        this.rows = rows;
    }

    HistoryRecord append(HistoryEvent event, Long version, String contentHash, String author, String message,
                         Instant at, List<String> added, List<String> removed, List<String> changed, String diff,
                         String details) {
        PolicyHistoryRow last = rows.findFirstOrderBySeqDesc().orElse(null);
        long seq = last == null ? 1 : last.seq() + 1;
        String prev = last == null ? GENESIS : last.recordHash();
        // Millisecond precision: what both H2 and PostgreSQL store exactly, so re-hashing matches.
        Instant stamped = at.truncatedTo(ChronoUnit.MILLIS);
        HistoryRecord unsigned = new HistoryRecord(seq, event, version, contentHash, author, message, stamped,
                List.copyOf(added), List.copyOf(removed), List.copyOf(changed), diff, details, prev, null);
        HistoryRecord record = withHash(unsigned, hash(unsigned));
        rows.save(toRow(record));
        return record;
    }

    public List<HistoryRecord> all() {
        return rows.findAllOrderBySeq().stream().map(PolicyHistory::fromRow).toList();
    }

    public ChainVerification verify() {
        String prev = GENESIS;
        long expectedSeq = 1;
        List<HistoryRecord> records = all();
        for (HistoryRecord r : records) {
            if (r.seq() != expectedSeq) {
                return new ChainVerification(false, records.size(), r.seq(), "record " + expectedSeq + " is missing");
            }
            if (!r.prevHash().equals(prev)) {
                return new ChainVerification(false, records.size(), r.seq(), "previous-hash link does not match record " + (r.seq() - 1));
            }
            if (!hash(r).equals(r.recordHash())) {
                return new ChainVerification(false, records.size(), r.seq(), "content does not match its hash (edited)");
            }
            prev = r.recordHash();
            expectedSeq++;
        }
        return new ChainVerification(true, records.size(), null, null);
    }

    static String hash(HistoryRecord r) {
        String canonical = String.join("\u001f", String.valueOf(r.seq()), r.event().name(), String.valueOf(r.version()),
                String.valueOf(r.contentHash()), r.author(), r.message(), String.valueOf(r.at().toEpochMilli()),
                String.join("\u001e", r.rulesAdded()), String.join("\u001e", r.rulesRemoved()),
                String.join("\u001e", r.rulesChanged()), r.diff(), r.details(), r.prevHash());
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    private static HistoryRecord withHash(HistoryRecord r, String hash) {
        return new HistoryRecord(r.seq(), r.event(), r.version(), r.contentHash(), r.author(), r.message(), r.at(),
                r.rulesAdded(), r.rulesRemoved(), r.rulesChanged(), r.diff(), r.details(), r.prevHash(), hash);
    }

    private static PolicyHistoryRow toRow(HistoryRecord r) {
        return new PolicyHistoryRow(r.seq(), r.event().name(), r.version(), r.contentHash(), r.author(), r.message(),
                r.at(), json(r.rulesAdded()), json(r.rulesRemoved()), json(r.rulesChanged()), r.diff(), r.details(),
                r.prevHash(), r.recordHash());
    }

    private static HistoryRecord fromRow(PolicyHistoryRow r) {
        return new HistoryRecord(r.seq(), HistoryEvent.valueOf(r.event()), r.version(), r.contentHash(), r.author(),
                r.message(), r.at(), list(r.rulesAdded()), list(r.rulesRemoved()), list(r.rulesChanged()), r.diff(),
                r.details(), r.prevHash(), r.recordHash());
    }

    private static String json(List<String> values) {
        try {
            return JSON.writeValueAsString(values);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a list of strings always serialises", e);
        }
    }

    private static List<String> list(String text) {
        try {
            return JSON.readValue(text, LIST);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt history column: " + text, e);
        }
    }
}
