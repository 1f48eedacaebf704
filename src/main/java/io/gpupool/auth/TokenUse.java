package io.gpupool.auth;

import io.gpupool.store.WriterLock;
import io.gpupool.store.row.ApiTokenRepository;
import io.micronaut.scheduling.annotation.Scheduled;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each token was last used. Every authenticated request passes here, the lease path
 * included, so a use costs a map read (and a map write at most once a minute per token); the
 * times are written to the database by {@link #flush()} once a minute, never on the request path.
 * A token's stored last-used time may therefore lag its real last use by up to two minutes.
 */
@Singleton
public class TokenUse {
    private static final Logger LOG = LoggerFactory.getLogger(TokenUse.class);
    static final Duration RESOLUTION = Duration.ofMinutes(1);

    private final ApiTokenRepository tokens;
    private final WriterLock writerLock;
    private final TransactionOperations<Connection> tx;
    private final Map<String, Instant> seen = new ConcurrentHashMap<>();
    private final Set<String> unwritten = ConcurrentHashMap.newKeySet();

    TokenUse(ApiTokenRepository tokens, WriterLock writerLock, TransactionOperations<Connection> tx) {
        this.tokens = tokens;
        this.writerLock = writerLock;
        this.tx = tx;
    }

    void used(String tokenId, Instant at) {
        Instant last = seen.get(tokenId);
        if (last == null || !at.isBefore(last.plus(RESOLUTION))) {
            seen.put(tokenId, at);
            unwritten.add(tokenId);
        }
    }

    /** The newest use known in memory, not yet or already written. */
    Optional<Instant> lastSeen(String tokenId) {
        return Optional.ofNullable(seen.get(tokenId));
    }

    /** Writes the uses seen since the last flush, in one transaction that commits only while this instance is the writer. */
    @Scheduled(fixedDelay = "${gpupool.tokens.last-used-flush:60s}", initialDelay = "${gpupool.tokens.last-used-flush:60s}")
    public void flush() {
        if (unwritten.isEmpty()) {
            return;
        }
        Set<String> ids = Set.copyOf(unwritten);
        unwritten.removeAll(ids);
        try {
            writerLock.ensureHeld();
            tx.executeWrite(status -> {
                writerLock.confirm(status.getConnection());
                for (String id : ids) {
                    tokens.updateLastUsedAt(id, seen.get(id));
                }
                return null;
            });
        } catch (RuntimeException e) {
            unwritten.addAll(ids); // kept for the next flush; a superseded instance never writes them
            LOG.warn("Token last-used times not written ({} tokens): {}", ids.size(), e.getMessage());
        }
    }
}
