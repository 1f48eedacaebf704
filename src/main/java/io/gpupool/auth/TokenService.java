package io.gpupool.auth;

import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.row.ApiTokenRepository;
import io.gpupool.store.row.ApiTokenRow;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.WriterLock;
import io.micronaut.context.annotation.Value;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
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
 * Tenant tokens get {@code gpupool.tokens.tenant-expiry} (default 90 days; 0 for none) unless
 * issued with an {@code expiresAt} of their own; other roles expire only when told to.
 * An org-admin issues, lists and revokes the tenant tokens of its own subtree only.
 */
@Singleton
public class TokenService {
    private final ApiTokenRepository tokens;
    private final WorkingSet workingSet;
    private final WriterLock writerLock;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;
    private final TokenUse use;
    private final Duration tenantExpiry;
    private final Map<String, Cached> byHash = new ConcurrentHashMap<>();

    private record Cached(Caller caller, Instant expiresAt) {
    }

    TokenService(ApiTokenRepository tokens, WorkingSet workingSet, WriterLock writerLock,
                 TransactionOperations<Connection> tx, Clock clock, TokenUse use,
                 @Value("${gpupool.tokens.tenant-expiry:90d}") Duration tenantExpiry) {
        if (tenantExpiry.isNegative()) {
            throw new IllegalArgumentException("gpupool.tokens.tenant-expiry must be 0 (no default expiry) or more, was "
                    + tenantExpiry);
        }
        this.tokens = tokens;
        this.workingSet = workingSet;
        this.writerLock = writerLock;
        this.tx = tx;
        this.clock = clock;
        this.use = use;
        this.tenantExpiry = tenantExpiry;
    }

    /** The caller of a valid secret, marking the token used; empty for an unknown, revoked or expired one. */
    public Optional<Caller> authenticate(String secret) {
        return Optional.ofNullable(check(secret).caller());
    }

    /** As {@link #authenticate}, telling an expired token (and when it expired) from an unknown one. */
    public Authentication check(String secret) {
        if (secret == null || secret.isBlank()) {
            return Authentication.unknown();
        }
        String hash = TokenHash.of(secret);
        Cached cached = byHash.get(hash);
        if (cached == null) {
            Optional<ApiTokenRow> stored = tokens.findByTokenHash(hash).filter(r -> r.revokedAt() == null);
            if (stored.isEmpty()) {
                return Authentication.unknown();
            }
            cached = new Cached(caller(stored.get()), stored.get().expiresAt());
            byHash.put(hash, cached);
        }
        Instant now = clock.instant();
        if (cached.expiresAt() != null && !now.isBefore(cached.expiresAt())) {
            return Authentication.expired(cached.caller().name(), cached.expiresAt());
        }
        use.used(cached.caller().tokenId(), now);
        return Authentication.valid(cached.caller());
    }

    /**
     * A token's name is recorded as the author of what it does ({@link Caller#principal()}, at most
     * 256 characters with its role and tenant), so it stays well under that.
     */
    static final int MAX_NAME = 100;

    public IssuedToken issue(String name, Role role, String tenantId, String createdBy) {
        return issue(name, role, tenantId, null, null, createdBy);
    }

    /** Most node lists an agent token may carry (a rack's worth of hosts several times over). */
    static final int MAX_NODES = 256;
    /** The latest expiry a token may carry: every time the API takes lies in the years 2000 to 9999 (docs/api.md). */
    static final Instant LATEST_EXPIRY = Instant.parse("9999-12-31T23:59:59Z");

    /** As {@link #issue(String, Role, String, List, Instant, String)} by {@code issuer}, who may be an org-admin. */
    public IssuedToken issue(String name, Role role, String tenantId, List<String> nodes, Instant expiresAt, Caller issuer) {
        if (issuer.isOrgAdmin()) {
            if (role != Role.TENANT) {
                throw ProblemException.forbidden("An org-admin issues tenant tokens only, not role "
                        + (role == null ? "(none)" : role.name().toLowerCase()));
            }
            if (tenantId != null && workingSet.current().tenant(tenantId).isPresent()) {
                issuer.requireReach(tenantId, workingSet.current());
            }
        }
        return issue(name, role, tenantId, nodes, expiresAt, issuer.principal());
    }

    /**
     * A token; an {@code agent} token names the nodes it may report for ({@code nodes}, which need
     * not exist yet: an agent's first report creates its node). Other roles take no node list.
     * Tenant and org-admin tokens name their tenant. {@code expiresAt} must lie ahead.
     */
    public IssuedToken issue(String name, Role role, String tenantId, List<String> nodes, Instant expiresAt, String createdBy) {
        if (name == null || name.isBlank()) {
            throw ProblemException.invalid("A token needs a name (who or what uses it)");
        }
        if (name.length() > MAX_NAME) {
            throw ProblemException.invalid("name: at most " + MAX_NAME + " characters, got " + name.length());
        }
        if (role == null) {
            throw ProblemException.invalid("A token needs a role: admin, org_admin, tenant, viewer or agent");
        }
        Instant now = clock.instant();
        if (expiresAt != null && !expiresAt.isAfter(now)) {
            throw ProblemException.invalid("expiresAt: must lie in the future, was " + expiresAt + " (now " + now + ")");
        }
        if (expiresAt != null && expiresAt.isAfter(LATEST_EXPIRY)) {
            throw ProblemException.invalid("expiresAt: " + expiresAt + " is outside the years 2000 to 9999");
        }
        if (role == Role.TENANT || role == Role.ORG_ADMIN) {
            if (tenantId == null || workingSet.current().tenant(tenantId).isEmpty()) {
                throw tenantId == null ? ProblemException.invalid("A " + role.name().toLowerCase()
                        + " token must name its tenant ('tenantId')") : ProblemException.notFound("tenant", tenantId);
            }
        } else if (tenantId != null) {
            throw ProblemException.invalid("Only tenant and org_admin tokens are bound to a tenant; drop 'tenantId' for role "
                    + role.name().toLowerCase());
        }
        if (expiresAt == null && role == Role.TENANT && !tenantExpiry.isZero()) {
            expiresAt = now.plus(tenantExpiry);
        }
        String nodeList = null;
        if (role == Role.AGENT) {
            if (nodes == null || nodes.isEmpty()) {
                throw ProblemException.invalid("nodes: an agent token must name the nodes it reports for");
            }
            if (nodes.size() > MAX_NODES) {
                throw ProblemException.invalid("nodes: at most " + MAX_NODES + " per token, got " + nodes.size());
            }
            FieldChecks check = new FieldChecks();
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
        return new IssuedToken(store(name, role, tenantId, nodeList, createdBy, secret, expiresAt), secret);
    }

    /** Registers a secret chosen by the operator (the bootstrap admin token); idempotent. */
    TokenInfo register(String name, Role role, String secret, String createdBy) {
        return tokens.findByTokenHash(TokenHash.of(secret)).map(this::info)
                .orElseGet(() -> store(name, role, null, null, createdBy, secret, null));
    }

    public List<TokenInfo> list() {
        return tokens.findByRevokedAtIsNull().stream().map(this::info).toList();
    }

    /**
     * The tokens {@code caller} may manage (an org-admin: those bound inside its subtree), not
     * revoked; with {@code unusedForDays}, only those not used for that many days (never used:
     * issued that long ago), longest unused first.
     */
    public List<TokenInfo> list(Integer unusedForDays, Caller caller) {
        if (unusedForDays != null && (unusedForDays < 0 || unusedForDays > 3650)) {
            throw ProblemException.invalid("unusedForDays: between 0 and 3650, was " + unusedForDays);
        }
        PoolSnapshot snapshot = workingSet.current();
        List<TokenInfo> visible = list().stream()
                .filter(t -> !caller.isOrgAdmin() || t.tenantId() != null && caller.reaches(t.tenantId(), snapshot))
                .toList();
        if (unusedForDays == null) {
            return visible;
        }
        Instant cutoff = clock.instant().minus(Duration.ofDays(unusedForDays));
        return visible.stream().filter(t -> lastActivity(t).isBefore(cutoff))
                .sorted(Comparator.comparing(TokenService::lastActivity)).toList();
    }

    private static Instant lastActivity(TokenInfo t) {
        return t.lastUsedAt() != null ? t.lastUsedAt() : t.createdAt();
    }

    public TokenInfo revoke(String id) {
        return revoke(id, null);
    }

    /** Revokes a token; an org-admin only a tenant token of its own subtree (403 otherwise, naming no owner). */
    public TokenInfo revoke(String id, Caller caller) {
        ApiTokenRow row = tokens.findById(id).orElseThrow(() -> ProblemException.notFound("token", id));
        if (caller != null && caller.isOrgAdmin() && (!Role.TENANT.name().equals(row.role()) || row.tenantId() == null
                || !caller.reaches(row.tenantId(), workingSet.current()))) {
            throw ProblemException.forbidden("Org-admin token '" + caller.name() + "' revokes tenant tokens of tenant '"
                    + caller.tenantId() + "' and its teams only; token '" + FieldChecks.excerpt(id) + "' is not one");
        }
        if (row.revokedAt() != null) {
            throw ProblemException.conflict("Token '" + FieldChecks.excerpt(id) + "' is already revoked");
        }
        ApiTokenRow revoked = new ApiTokenRow(row.id(), row.name(), row.role(), row.tenantId(), row.tokenHash(),
                row.createdBy(), row.createdAt(), clock.instant(), row.nodes(), row.expiresAt(), row.lastUsedAt());
        fenced(() -> tokens.update(revoked));
        byHash.remove(row.tokenHash());
        return info(revoked);
    }

    boolean hasActiveAdmin() {
        return tokens.countByRoleAndRevokedAtIsNull(Role.ADMIN.name()) > 0;
    }

    private TokenInfo store(String name, Role role, String tenantId, String nodes, String createdBy, String secret,
                            Instant expiresAt) {
        ApiTokenRow row = new ApiTokenRow(UUID.randomUUID().toString(), name, role.name(), tenantId,
                TokenHash.of(secret), createdBy, clock.instant(), null, nodes, expiresAt, null);
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

    /** The row as shown, with the newest use seen in memory when it is newer than the stored one. */
    private TokenInfo info(ApiTokenRow row) {
        Instant lastUsed = row.lastUsedAt();
        Optional<Instant> seen = use.lastSeen(row.id());
        if (seen.isPresent() && (lastUsed == null || seen.get().isAfter(lastUsed))) {
            lastUsed = seen.get();
        }
        return new TokenInfo(row.id(), row.name(), Role.valueOf(row.role()), row.tenantId(), nodes(row), row.createdBy(),
                row.createdAt(), row.revokedAt(), row.expiresAt(), lastUsed);
    }

    private static List<String> nodes(ApiTokenRow row) {
        return row.nodes() == null || row.nodes().isEmpty() ? List.of() : List.of(row.nodes().split(","));
    }
}
