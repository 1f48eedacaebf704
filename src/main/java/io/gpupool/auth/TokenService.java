package io.gpupool.auth;

import io.gpupool.problem.ProblemException;
import io.gpupool.store.row.ApiTokenRepository;
import io.gpupool.store.row.ApiTokenRow;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.WriterLock;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Issues, lists, revokes and checks API tokens. Valid tokens are cached by hash: authentication is a
 * map lookup on every request, and the cache changes only after the row is committed. Token rows are
 * written outside the working set, but like every write they are fenced: only the writer issues or
 * revokes, and a writer superseded since its last lock check commits neither (503).
 */
@Singleton
public class TokenService {
    private final ApiTokenRepository tokens;
    private final WorkingSet workingSet;
    private final WriterLock writerLock;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;
    private final Map<String, Caller> byHash = new ConcurrentHashMap<>();

    TokenService(ApiTokenRepository tokens, WorkingSet workingSet, WriterLock writerLock,
                 TransactionOperations<Connection> tx, Clock clock) {
        this.tokens = tokens;
        this.workingSet = workingSet;
        this.writerLock = writerLock;
        this.tx = tx;
        this.clock = clock;
    }

    public Optional<Caller> authenticate(String secret) {
        if (secret == null || secret.isBlank()) {
            return Optional.empty();
        }
        String hash = TokenHash.of(secret);
        Caller cached = byHash.get(hash);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<Caller> stored = tokens.findByTokenHash(hash).filter(r -> r.revokedAt() == null).map(TokenService::caller);
        stored.ifPresent(c -> byHash.put(hash, c));
        return stored;
    }

    /**
     * A token's name is recorded as the author of what it does ({@link Caller#principal()}, at most
     * 256 characters with its role and tenant), so it stays well under that.
     */
    static final int MAX_NAME = 100;

    public IssuedToken issue(String name, Role role, String tenantId, String createdBy) {
        return issue(name, role, tenantId, null, createdBy);
    }

    /** Most node lists an agent token may carry (a rack's worth of hosts several times over). */
    static final int MAX_NODES = 256;

    /**
     * A token; an {@code agent} token names the nodes it may report for ({@code nodes}, which need
     * not exist yet: an agent's first report creates its node). Other roles take no node list.
     */
    public IssuedToken issue(String name, Role role, String tenantId, List<String> nodes, String createdBy) {
        if (name == null || name.isBlank()) {
            throw ProblemException.invalid("A token needs a name (who or what uses it)");
        }
        if (name.length() > MAX_NAME) {
            throw ProblemException.invalid("name: at most " + MAX_NAME + " characters, got " + name.length());
        }
        if (role == null) {
            throw ProblemException.invalid("A token needs a role: admin, tenant, viewer or agent");
        }
        if (role == Role.TENANT) {
            if (tenantId == null || workingSet.current().tenant(tenantId).isEmpty()) {
                throw tenantId == null ? ProblemException.invalid("A tenant token must name its tenant")
                        : ProblemException.notFound("tenant", tenantId);
            }
        } else if (tenantId != null) {
            throw ProblemException.invalid("Only tenant tokens are bound to a tenant; drop 'tenantId' for role "
                    + role.name().toLowerCase());
        }
        String nodeList = null;
        if (role == Role.AGENT) {
            if (nodes == null || nodes.isEmpty()) {
                throw ProblemException.invalid("nodes: an agent token must name the nodes it reports for");
            }
            if (nodes.size() > MAX_NODES) {
                throw ProblemException.invalid("nodes: at most " + MAX_NODES + " per token, got " + nodes.size());
            }
            io.gpupool.problem.FieldChecks check = new io.gpupool.problem.FieldChecks();
            for (int i = 0; i < nodes.size(); i++) {
                check.identifier("nodes[" + i + "]", nodes.get(i));
            }
            check.throwIfAny("The token was not issued");
            nodeList = String.join(",", new java.util.TreeSet<>(nodes));
        } else if (nodes != null && !nodes.isEmpty()) {
            throw ProblemException.invalid("Only agent tokens are bound to nodes; drop 'nodes' for role "
                    + role.name().toLowerCase());
        }
        String secret = TokenHash.newSecret();
        return new IssuedToken(store(name, role, tenantId, nodeList, createdBy, secret), secret);
    }

    /** Registers a secret chosen by the operator (the bootstrap admin token); idempotent. */
    TokenInfo register(String name, Role role, String secret, String createdBy) {
        return tokens.findByTokenHash(TokenHash.of(secret)).map(TokenService::info)
                .orElseGet(() -> store(name, role, null, null, createdBy, secret));
    }

    public List<TokenInfo> list() {
        return tokens.findByRevokedAtIsNull().stream().map(TokenService::info).toList();
    }

    public TokenInfo revoke(String id) {
        ApiTokenRow row = tokens.findById(id).orElseThrow(() -> ProblemException.notFound("token", id));
        if (row.revokedAt() != null) {
            throw ProblemException.conflict("Token '" + io.gpupool.problem.FieldChecks.excerpt(id) + "' is already revoked");
        }
        ApiTokenRow revoked = new ApiTokenRow(row.id(), row.name(), row.role(), row.tenantId(), row.tokenHash(),
                row.createdBy(), row.createdAt(), clock.instant(), row.nodes());
        fenced(() -> tokens.update(revoked));
        byHash.remove(row.tokenHash());
        return info(revoked);
    }

    boolean hasActiveAdmin() {
        return tokens.countByRoleAndRevokedAtIsNull(Role.ADMIN.name()) > 0;
    }

    private TokenInfo store(String name, Role role, String tenantId, String nodes, String createdBy, String secret) {
        ApiTokenRow row = new ApiTokenRow(UUID.randomUUID().toString(), name, role.name(), tenantId,
                TokenHash.of(secret), createdBy, clock.instant(), null, nodes);
        fenced(() -> tokens.save(row));
        return info(row);
    }

    /** One token write in a transaction of its own that commits only while this instance is the writer. */
    private void fenced(Runnable write) {
        writerLock.ensureHeld();
        tx.executeWrite(status -> {
            writerLock.confirm(status.getConnection());
            write.run();
            return null;
        });
    }

    private static Caller caller(ApiTokenRow row) {
        return new Caller(row.id(), row.name(), Role.valueOf(row.role()), row.tenantId(), java.util.Set.copyOf(nodes(row)));
    }

    private static TokenInfo info(ApiTokenRow row) {
        return new TokenInfo(row.id(), row.name(), Role.valueOf(row.role()), row.tenantId(), nodes(row), row.createdBy(),
                row.createdAt(), row.revokedAt());
    }

    private static List<String> nodes(ApiTokenRow row) {
        return row.nodes() == null || row.nodes().isEmpty() ? List.of() : List.of(row.nodes().split(","));
    }
}
