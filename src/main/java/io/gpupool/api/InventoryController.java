package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Role;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.inventory.DeviceFilter;
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

import java.util.Comparator;
import java.util.List;

/** The physical inventory: sites, clusters, nodes, devices (read by every role), and device heartbeats (admin). */
@Controller("/api/v1")
public class InventoryController {
    private final WorkingSet workingSet;
    private final HeartbeatService heartbeats;

    InventoryController(WorkingSet workingSet, HeartbeatService heartbeats) {
        this.workingSet = workingSet;
        this.heartbeats = heartbeats;
    }

    @Get("/sites")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public List<Site> sites() {
        return workingSet.current().sites().values().stream().sorted(Comparator.comparing(Site::id)).toList();
    }

    @Get("/clusters")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public List<Cluster> clusters(@Nullable @QueryValue String site) {
        return workingSet.current().clusters().values().stream()
                .filter(c -> site == null || site.equals(c.siteId()))
                .sorted(Comparator.comparing(Cluster::id)).toList();
    }

    @Get("/nodes")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public Page<Node> nodes(@Nullable @QueryValue String cluster, @Nullable @QueryValue String site,
                            @Nullable @QueryValue String label,
                            @QueryValue(defaultValue = "0") int page, @QueryValue(defaultValue = "100") int size) {
        LabelSelector selector = LabelSelector.parse(label);
        List<Node> matches = workingSet.current().nodes().values().stream()
                .filter(n -> cluster == null || cluster.equals(n.clusterId()))
                .filter(n -> site == null || site.equals(n.siteId()))
                .filter(n -> selector == null || selector.matches(n.labels()))
                .sorted(Comparator.comparing(Node::id)).toList();
        return Page.of(matches, page, size);
    }

    @Get("/nodes/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public Node node(@PathVariable String id) {
        return workingSet.current().node(id).orElseThrow(() -> ProblemException.notFound("node", id));
    }

    @Get("/devices")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public Page<DeviceView> devices(@Nullable @QueryValue String model, @Nullable @QueryValue String node,
                                    @Nullable @QueryValue String cluster, @Nullable @QueryValue String site,
                                    @Nullable @QueryValue String pool, @Nullable @QueryValue DeviceHealth health,
                                    @Nullable @QueryValue String label,
                                    @QueryValue(defaultValue = "0") int page, @QueryValue(defaultValue = "100") int size) {
        PoolSnapshot snapshot = workingSet.current();
        DeviceFilter filter = new DeviceFilter(model, node, cluster, site, pool, health, LabelSelector.parse(label));
        List<DeviceView> matches = snapshot.devices().values().stream().filter(filter::matches)
                .sorted(Comparator.comparing(Device::id)).map(d -> view(snapshot, d)).toList();
        return Page.of(matches, page, size);
    }

    @Get("/devices/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public DeviceView device(@PathVariable String id) {
        PoolSnapshot snapshot = workingSet.current();
        return view(snapshot, snapshot.device(id).orElseThrow(() -> ProblemException.notFound("device", id)));
    }

    @Post("/devices/{id}/heartbeat")
    @Allow(Role.ADMIN)
    public DeviceView heartbeat(@PathVariable String id, @Nullable @Body Heartbeat heartbeat) {
        return view(workingSet.current(), heartbeats.record(id, heartbeat));
    }

    private static DeviceView view(PoolSnapshot snapshot, Device d) {
        return new DeviceView(d, snapshot.usedMilli(d.id()), snapshot.freeMilli(d.id()));
    }
}
