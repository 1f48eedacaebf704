package io.gpupool.policy.check;

import io.gpupool.catalog.CardCatalog;
import io.gpupool.catalog.CardModel;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.snapshot.PoolSnapshot;
import org.drools.drl.ast.descr.AccumulateDescr;
import org.drools.drl.ast.descr.AtomicExprDescr;
import org.drools.drl.ast.descr.BaseDescr;
import org.drools.drl.ast.descr.CollectDescr;
import org.drools.drl.ast.descr.ConditionalElementDescr;
import org.drools.drl.ast.descr.ConstraintConnectiveDescr;
import org.drools.drl.ast.descr.ExprConstraintDescr;
import org.drools.drl.ast.descr.PackageDescr;
import org.drools.drl.ast.descr.PatternDescr;
import org.drools.drl.ast.descr.RelationalExprDescr;
import org.drools.drl.ast.descr.RuleDescr;
import org.drools.drl.parser.DrlExprParser;
import org.drools.drl.parser.DrlExprParserFactory;
import org.drools.drl.parser.DrlParser;
import org.drools.drl.parser.DroolsParserException;
import org.kie.internal.builder.conf.LanguageLevelOption;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule set read against the live fleet rather than its fixtures: a string literal that a rule
 * compares ({@code ==}, {@code !=}, {@code in}, {@code not in}) with a fact field naming something
 * of the fleet — a card model or family, a pool or tier, a tenant, a node, a label — and that
 * nothing of the fleet has is a warning: such a condition is always false (or, negated, always
 * true), which is how {@code model == "H100"} once tiered the whole shipped fleet elastic. Rules
 * are read through Drools' own parser (rule, pattern and constraint descriptors), so comments,
 * consequences and strings elsewhere are not mistaken for conditions. A kind of thing the fleet
 * has none of (no device yet, say) is not checked: an empty fleet says nothing about a literal.
 * Also warned: cards whose model name the card-model catalog cannot resolve (rules matching
 * families never see them as what they are).
 */
public final class FleetLiterals {
    private static final Pattern HAS_LABEL = Pattern.compile("^hasLabel\\(\\s*\"([^\"]*)\"\\s*,\\s*\"([^\"]*)\"\\s*\\)$");
    private static final Pattern LABEL = Pattern.compile("^label\\(\\s*\"([^\"]*)\"\\s*\\)$");
    private static final int SHOWN = 12;

    /** A kind of thing of the fleet a field names, and how a message speaks of it. */
    enum Kind {
        MODEL("device", "models"), FAMILY("device", "families"), VARIANT("device", "variants"),
        POOL("pool", "pools"), POOL_NAME("pool", "pool names"), TIER("pool", "tiers"),
        TENANT("tenant", "tenants"), TENANT_NAME("tenant", "tenant names"), NODE("node", "nodes"),
        CLUSTER("cluster", "clusters"), QUOTA_MODEL("quota", "models"), LABEL("node or device", "labels");

        final String holder;
        final String plural;

        Kind(String holder, String plural) {
            this.holder = holder;
            this.plural = plural;
        }
    }

    /** Fact (and decision) fields that name a thing of the fleet, by the type's simple name. */
    private static final Map<String, Map<String, Kind>> FIELDS = Map.of(
            "DeviceFact", Map.of("model", Kind.MODEL, "family", Kind.FAMILY, "variant", Kind.VARIANT,
                    "poolId", Kind.POOL, "poolTier", Kind.TIER, "nodeId", Kind.NODE, "clusterId", Kind.CLUSTER),
            "PoolFact", Map.of("poolId", Kind.POOL, "name", Kind.POOL_NAME, "tier", Kind.TIER),
            "TenantFact", Map.of("tenantId", Kind.TENANT, "parentId", Kind.TENANT, "orgId", Kind.TENANT,
                    "name", Kind.TENANT_NAME),
            "TenantUsageFact", Map.of("tenantId", Kind.TENANT, "orgId", Kind.TENANT, "poolId", Kind.POOL,
                    "model", Kind.QUOTA_MODEL),
            "LeaseFact", Map.of("tenantId", Kind.TENANT, "orgId", Kind.TENANT, "poolId", Kind.POOL),
            "RequestFact", Map.of("tenantId", Kind.TENANT),
            "QuotaVerdict", Map.of("tenantId", Kind.TENANT, "lenderId", Kind.TENANT, "poolId", Kind.POOL),
            "PreemptionCandidate", Map.of("tenantId", Kind.TENANT, "poolId", Kind.POOL));

    private FleetLiterals() {
    }

    /** Every warning about {@code ruleSet} on {@code fleet}; files that do not parse are the compiler's to report. */
    public static List<PolicyMessage> check(RuleSet ruleSet, PoolSnapshot fleet) {
        Values values = Values.of(fleet);
        List<PolicyMessage> messages = new ArrayList<>(unknownCards(fleet));
        ruleSet.ruleFiles().forEach((file, text) -> {
            PackageDescr descr = parse(text);
            if (descr != null) {
                for (RuleDescr rule : descr.getRules()) {
                    new RuleReader(new FleetSink(file, rule, values, messages)).walk(rule.getLhs());
                }
            }
        });
        return messages;
    }

    /** Cards whose model name the catalog cannot resolve: a warning with their count and names. */
    static List<PolicyMessage> unknownCards(PoolSnapshot fleet) {
        CardCatalog catalog = CardCatalog.active();
        Map<String, Long> unknown = new java.util.TreeMap<>();
        for (Device d : fleet.devices().values()) {
            if (!catalog.resolve(d.model()).known()) {
                unknown.merge(String.valueOf(d.model()), 1L, Long::sum);
            }
        }
        if (unknown.isEmpty()) {
            return List.of();
        }
        long count = unknown.values().stream().mapToLong(Long::longValue).sum();
        return List.of(new PolicyMessage(Stage.FLEET, Severity.WARNING, null, 0, 0, count + " device(s) of the fleet have a"
                + " model name the card-model catalog cannot resolve, so no rule matching a family sees them: "
                + unknown.entrySet().stream().map(e -> "\"" + e.getKey() + "\" (" + e.getValue() + ")").toList()
                + "; add its family (or an alias) to the catalog file named by gpupool.catalog.file, or fix the inventory"));
    }

    private static PackageDescr parse(String text) {
        DrlParser parser = new DrlParser();
        try {
            PackageDescr descr = parser.parse(false, text);
            return parser.hasErrors() ? null : descr;
        } catch (DroolsParserException e) {
            return null;
        }
    }

    /** What the fleet has, by kind; an absent kind (an empty set) is not checked. */
    record Values(Map<Kind, Set<String>> byKind) {
        static Values of(PoolSnapshot fleet) {
            Map<Kind, Set<String>> v = new java.util.EnumMap<>(Kind.class);
            for (Kind k : Kind.values()) {
                v.put(k, new TreeSet<>());
            }
            CardCatalog catalog = CardCatalog.active();
            for (Device d : fleet.devices().values()) {
                add(v, Kind.MODEL, d.model());
                CardModel card = catalog.resolve(d.model());
                if (card.known()) {
                    add(v, Kind.FAMILY, card.family());
                    add(v, Kind.VARIANT, card.variant());
                }
                d.labels().forEach((k, value) -> add(v, Kind.LABEL, k + "=" + value));
            }
            for (Node n : fleet.nodes().values()) {
                add(v, Kind.NODE, n.id());
                add(v, Kind.CLUSTER, n.clusterId());
                n.labels().forEach((k, value) -> add(v, Kind.LABEL, k + "=" + value));
            }
            for (Pool p : fleet.pools().values()) {
                add(v, Kind.POOL, p.id());
                add(v, Kind.POOL_NAME, p.name());
                add(v, Kind.TIER, p.tier() == null ? null : p.tier().name());
            }
            for (Tenant t : fleet.tenants().values()) {
                add(v, Kind.TENANT, t.id());
                add(v, Kind.TENANT_NAME, t.name());
            }
            if (!fleet.quotas().isEmpty()) {
                add(v, Kind.QUOTA_MODEL, Quota.ANY_MODEL);
                fleet.quotas().values().forEach(q -> add(v, Kind.QUOTA_MODEL, q.model()));
            }
            return new Values(v);
        }

        private static void add(Map<Kind, Set<String>> v, Kind kind, String value) {
            if (value != null) {
                v.get(kind).add(value);
            }
        }

        /** The fleet's values of {@code kind}; empty when the fleet has none (then nothing is checked). */
        Set<String> of(Kind kind) {
            return byKind.get(kind);
        }
    }

    /**
     * The string literals the rules of {@code ruleSet} compare with {@code field} of {@code factType}
     * (e.g. the priority classes a policy knows: {@code RequestFact.priorityClass}).
     */
    public static Set<String> comparedWith(RuleSet ruleSet, String factType, String field) {
        Set<String> found = new TreeSet<>();
        ruleSet.ruleFiles().forEach((file, text) -> {
            PackageDescr descr = parse(text);
            if (descr != null) {
                for (RuleDescr rule : descr.getRules()) {
                    new RuleReader((type, name, group, at) -> {
                        if (type.equals(factType) && name.equals(field)) {
                            found.addAll(group);
                        }
                    }).walk(rule.getLhs());
                }
            }
        });
        return found;
    }

    /**
     * Receives the string literals one connective of one pattern compares with one field (or a
     * {@code hasLabel("k", "v")} call, field {@code hasLabel}, value {@code k=v}); alternatives of the
     * same field ({@code in}, {@code not in}) come as one group.
     */
    private interface Sink {
        void literals(String factType, String field, List<String> values, ExprConstraintDescr at);
    }

    /** Checks each group against the fleet: a group none of whose literals the fleet has is a warning. */
    private record FleetSink(String file, RuleDescr rule, Values values, List<PolicyMessage> messages) implements Sink {
        @Override
        public void literals(String type, String field, List<String> group, ExprConstraintDescr at) {
            Kind kind;
            String shownField = field;
            List<String> keys = group;
            Matcher label = LABEL.matcher(field);
            if ("DeviceFact".equals(type) && "hasLabel".equals(field)) {
                kind = Kind.LABEL;
                shownField = "labels";
            } else if ("DeviceFact".equals(type) && label.matches()) {
                kind = Kind.LABEL;
                shownField = "label " + label.group(1);
                keys = group.stream().map(v -> label.group(1) + "=" + v).toList();
            } else {
                kind = FIELDS.getOrDefault(type, Map.of()).get(field);
            }
            Set<String> known = kind == null ? Set.of() : values.of(kind);
            if (known.isEmpty() || keys.stream().anyMatch(known::contains)) {
                return;
            }
            int line = at.getLine() > 0 ? at.getLine() : Math.max(rule.getLine(), 0);
            int column = Math.max(at.getColumn(), 0);
            String shown = String.join(", ", group.stream().distinct()
                    .map(v -> "hasLabel".equals(field) ? v : "\"" + v + "\"").toList());
            messages.add(new PolicyMessage(Stage.FLEET, Severity.WARNING, file, line, column, "rule '" + rule.getName()
                    + "' compares " + shownField + " with " + shown + ", which no " + kind.holder
                    + " of the fleet has (" + kind.plural + ": " + list(known) + ")"));
        }

        private static String list(Set<String> known) {
            List<String> shown = known.stream().limit(SHOWN).toList();
            return String.join(", ", shown) + (known.size() > SHOWN ? ", … " + (known.size() - SHOWN) + " more" : "");
        }
    }

    /** Walks one rule's conditions pattern by pattern (nested collect/accumulate/not/exists/or included). */
    private record RuleReader(Sink sink) {
        void walk(BaseDescr d) {
            if (d instanceof PatternDescr p) {
                String type = simpleName(p.getObjectType());
                for (BaseDescr c : p.getDescrs()) {
                    if (c instanceof ExprConstraintDescr e) {
                        constraint(type, e);
                    }
                }
                if (p.getSource() instanceof CollectDescr collect) {
                    walk(collect.getInputPattern());
                } else if (p.getSource() instanceof AccumulateDescr accumulate) {
                    walk(accumulate.getInput());
                }
            } else if (d instanceof ConditionalElementDescr ce) {
                for (BaseDescr child : ce.getDescrs()) {
                    walk(child);
                }
            }
        }

        private void constraint(String type, ExprConstraintDescr e) {
            DrlExprParser parser = DrlExprParserFactory.getDrlExprParser(LanguageLevelOption.DRL6);
            ConstraintConnectiveDescr parsed = parser.parse(e.getExpression());
            if (!parser.hasErrors() && parsed != null) {
                connective(type, parsed, e);
            }
        }

        /** The literals of one connective are grouped per field: alternatives of a field are one condition. */
        private void connective(String type, BaseDescr d, ExprConstraintDescr at) {
            List<? extends BaseDescr> children = d instanceof ConstraintConnectiveDescr c ? c.getDescrs() : List.of(d);
            Map<String, List<String>> byField = new java.util.LinkedHashMap<>();
            for (BaseDescr child : children) {
                if (child instanceof ConstraintConnectiveDescr) {
                    connective(type, child, at);
                    continue;
                }
                String[] literal = literal(child);
                if (literal != null) {
                    byField.computeIfAbsent(literal[0], k -> new ArrayList<>()).add(literal[1]);
                }
            }
            byField.forEach((field, group) -> sink.literals(type, field, group, at));
        }

        /** {field, value} of {@code field == "value"} (either side, or {@code !=}), or of {@code hasLabel("k", "v")}. */
        private static String[] literal(BaseDescr d) {
            if (d instanceof RelationalExprDescr r && ("==".equals(r.getOperator()) || "!=".equals(r.getOperator()))
                    && r.getLeft() instanceof AtomicExprDescr left && r.getRight() instanceof AtomicExprDescr right) {
                AtomicExprDescr field = left.isLiteral() ? right : left;
                AtomicExprDescr literal = left.isLiteral() ? left : right;
                if (!literal.isLiteral() || field.isLiteral() || !isString(literal.getExpression())) {
                    return null;
                }
                return new String[] {field.getExpression().strip(), unquote(literal.getExpression())};
            }
            if (d instanceof AtomicExprDescr a) {
                Matcher has = HAS_LABEL.matcher(a.getExpression().strip());
                if (has.matches()) {
                    return new String[] {"hasLabel", has.group(1) + "=" + has.group(2)};
                }
            }
            return null;
        }
    }

    private static boolean isString(String literal) {
        String s = literal.strip();
        return s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'"));
    }

    private static String unquote(String literal) {
        String s = literal.strip();
        return s.substring(1, s.length() - 1);
    }

    private static String simpleName(String type) {
        if (type == null) {
            return "";
        }
        int dot = type.lastIndexOf('.');
        return dot < 0 ? type : type.substring(dot + 1);
    }
}
