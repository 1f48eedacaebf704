package io.gpupool.governance;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A history record's hash covers every field and its predecessor's hash, so editing any of them
 * is caught by {@code /history/verify} (PolicyLifecycleApiTest edits rows in the database).
 */
class PolicyHistoryHashTest {
    private static final Instant AT = Instant.parse("2026-11-30T12:00:00.123Z");
    private static final HistoryRecord RECORD = new HistoryRecord(3, HistoryEvent.ACTIVATED, 7L, "c0ffee", "alice",
            "tighten idle reclamation", AT, List.of("Idle DEV lease is reclaimed"), List.of("Old rule"),
            List.of("Changed rule"), "--- a\n+++ b\n", "{\"from\":6}", "ab".repeat(32), null);

    @Test
    void theHashIsASha256InHexAndTheSameForTheSameRecord() {
        assertThat(PolicyHistory.hash(RECORD)).matches("[0-9a-f]{64}").isEqualTo(PolicyHistory.hash(copy(RECORD)));
    }

    @Test
    void editingAnyFieldOrTheLinkToThePredecessorChangesTheHash() {
        String original = PolicyHistory.hash(RECORD);
        Map<String, HistoryRecord> edits = new LinkedHashMap<>();
        edits.put("seq", with(4, RECORD.event(), RECORD.version(), RECORD.contentHash(), RECORD.author(),
                RECORD.message(), RECORD.at(), RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(),
                RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("event", with(3, HistoryEvent.ROLLED_BACK, 7L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("version", with(3, RECORD.event(), 8L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("contentHash", with(3, RECORD.event(), 7L, "deadbeef", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("author", with(3, RECORD.event(), 7L, "c0ffee", "mallory", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("message", with(3, RECORD.event(), 7L, "c0ffee", "alice", "routine", AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("at", with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT.plusMillis(1),
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("rulesAdded", with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT,
                List.of(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("rulesRemoved", with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), List.of("Old rule", "Another"), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("rulesChanged", with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), List.of("Changed rulE"), RECORD.diff(), RECORD.details(), RECORD.prevHash()));
        edits.put("diff", with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), "", RECORD.details(), RECORD.prevHash()));
        edits.put("details", with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), "{}", RECORD.prevHash()));
        edits.put("prevHash", with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(), PolicyHistory.GENESIS));

        edits.forEach((field, edited) -> assertThat(PolicyHistory.hash(edited)).as("edited " + field).isNotEqualTo(original));
    }

    @Test
    void aRuleMovedFromOneListToAnotherChangesTheHash() {
        HistoryRecord moved = with(3, RECORD.event(), 7L, "c0ffee", "alice", RECORD.message(), AT,
                List.of(), List.of("Idle DEV lease is reclaimed", "Old rule"), RECORD.rulesChanged(), RECORD.diff(),
                RECORD.details(), RECORD.prevHash());

        assertThat(PolicyHistory.hash(moved)).isNotEqualTo(PolicyHistory.hash(RECORD));
    }

    @Test
    void theStoredHashItselfIsNotPartOfWhatIsHashed() {
        HistoryRecord signed = new HistoryRecord(3, HistoryEvent.ACTIVATED, 7L, "c0ffee", "alice", RECORD.message(), AT,
                RECORD.rulesAdded(), RECORD.rulesRemoved(), RECORD.rulesChanged(), RECORD.diff(), RECORD.details(),
                RECORD.prevHash(), PolicyHistory.hash(RECORD));

        assertThat(PolicyHistory.hash(signed)).isEqualTo(signed.recordHash());
    }

    private static HistoryRecord copy(HistoryRecord r) {
        return with(r.seq(), r.event(), r.version(), r.contentHash(), r.author(), r.message(), r.at(), r.rulesAdded(),
                r.rulesRemoved(), r.rulesChanged(), r.diff(), r.details(), r.prevHash());
    }

    private static HistoryRecord with(long seq, HistoryEvent event, Long version, String contentHash,
                                      String author, String message, Instant at, List<String> added, List<String> removed,
                                      List<String> changed, String diff, String details, String prevHash) {
        return new HistoryRecord(seq, event, version, contentHash, author, message, at, added, removed, changed, diff,
                details, prevHash, null);
    }
}
