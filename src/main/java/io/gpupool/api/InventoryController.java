package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Role;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.inventory.DeviceFilter;
import io.gpupool.inventory.NodeView;
import io.gpupool.catalog.CardCatalog;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.inventory.DeviceView;
import io.gpupool.domain.inventory.Heartbeat;
import io.gpupool.inventory.HeartbeatService;
import io.gpupool.inventory.LabelSelector;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.swagger.v3.oas.annotations.media.Schema;

import java.util.Comparator;
import java.util.List;

/** The physical inventory: sites, clusters, nodes, devices (read by every role), and device heartbeats (admin). */
@Controller("/api/v1")
public class InventoryController {
    private final WorkingSet workingSet;
    private final HeartbeatService heartbeats;
    private final io.gpupool.telemetry.DeviceTelemetry telemetry;
    private final java.time.Clock clock;
    private final int staleAfterIntervals;
    private final io.gpupool.telemetry.AgentPresence presence;

    InventoryController(WorkingSet workingSet, HeartbeatService heartbeats, io.gpupool.telemetry.DeviceTelemetry telemetry,
                        io.gpupool.telemetry.AgentPresence presence, java.time.Clock clock,
                        @io.micronaut.context.annotation.Value("${gpupool.agent.stale-after-intervals:3}") int staleAfterIntervals) {
        this.workingSet = workingSet;
        this.heartbeats = heartbeats;
        this.telemetry = telemetry;
        this.presence = presence;
        this.clock = clock;
        this.staleAfterIntervals = staleAfterIntervals;
    }

    @Get("/sites")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public List<Site> sites() {
        return workingSet.current().sites().values().stream().sorted(Comparator.comparing(Site::id)).toList();
    }

    @Get("/clusters")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public List<io.gpupool.inventory.ClusterView> clusters(@Nullable @QueryValue String site) {
        PoolSnapshot snapshot = workingSet.current();
        return snapshot.clusters().values().stream()
                .filter(c -> site == null || site.equals(c.siteId()))
                .sorted(Comparator.comparing(Cluster::id))
                .map(c -> io.gpupool.inventory.ClusterView.of(snapshot, c, clock.instant())).toList();
    }

    @Get("/nodes")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public Page<NodeView> nodes(@Nullable @QueryValue String cluster, @Nullable @QueryValue String site,
                                @Nullable @QueryValue String label, @Nullable @QueryValue PoolTier tier,
                                @QueryValue(defaultValue = "0") int page, @QueryValue(defaultValue = "100") int size) {
        LabelSelector selector = LabelSelector.parse(label);
        PoolSnapshot snapshot = workingSet.current();
        List<NodeView> matches = snapshot.nodes().values().stream()
                .filter(n -> cluster == null || cluster.equals(n.clusterId()))
                .filter(n -> site == null || site.equals(n.siteId()))
                .sorted(Comparator.comparing(Node::id))
                .map(n -> NodeView.of(snapshot, presence.current(n), clock.instant(), staleAfterIntervals))
                .filter(v -> v.matches(selector))
                .filter(v -> tier == null || v.tiers().containsKey(tier))
                .toList();
        return Page.of(matches, page, size);
    }

    @Get("/nodes/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public NodeView node(@PathVariable String id) {
        PoolSnapshot snapshot = workingSet.current();
        return NodeView.of(snapshot, presence.current(snapshot.node(id).orElseThrow(() -> ProblemException.notFound("node", id))),
                clock.instant(), staleAfterIntervals);
    }

    @Get("/devices")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public Page<DeviceView> devices(@Nullable @QueryValue String model, @Nullable @QueryValue String node,
                                    @Nullable @QueryValue String cluster, @Nullable @QueryValue String site,
                                    @Nullable @QueryValue String pool, @Nullable @QueryValue DeviceHealth health,
                                    @Nullable @QueryValue String label, @Nullable @QueryValue PoolTier tier,
                                    @Nullable @QueryValue String catalog,
                                    @Nullable @QueryValue @Schema(type = "boolean") String poolMismatch,
                                    @QueryValue(defaultValue = "0") int page, @QueryValue(defaultValue = "100") int size) {
        PoolSnapshot snapshot = workingSet.current();
        DeviceFilter filter = new DeviceFilter(model, node, cluster, site, pool, health, LabelSelector.parse(label),
                tier, DeviceFilter.parseCatalog(catalog), QueryFlag.parse("poolMismatch", poolMismatch));
        List<DeviceView> matches = snapshot.devices().values().stream()
                .sorted(Comparator.comparing(Device::id)).map(d -> view(snapshot, d)).filter(filter::matches).toList();
        return Page.of(matches, page, size);
    }

    /** The card-model catalog devices are resolved with: the shipped families plus the admins' file. */
    @Get("/catalog")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public List<CardCatalog.Family> catalog() {
        return CardCatalog.active().families();
    }

    @Get("/devices/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public DeviceView device(@PathVariable String id) {
        PoolSnapshot snapshot = workingSet.current();
        return view(snapshot, snapshot.device(id).orElseThrow(() -> ProblemException.notFound("device", id)));
    }

    @Post("/devices/{id}/heartbeat")
    @Allow(Role.ADMIN)
    public DeviceView heartbeat(@PathVariable String id, @Nullable @Body Heartbeat heartbeat) {
        return view(workingSet.current(), heartbeats.record(id, heartbeat));
    }

    private DeviceView view(PoolSnapshot snapshot, Device d) {
        // A routine agent report moves the node's presence, not the device record (AgentPresence).
        Device reported = presence.current(d, snapshot.node(d.nodeId()).orElse(null));
        return DeviceView.of(snapshot, reported, telemetry, clock.instant());
    }
}
