package io.gpupool.fleet;

import io.gpupool.inventory.Cluster;
import io.gpupool.inventory.Device;
import io.gpupool.inventory.Node;
import io.gpupool.inventory.Site;
import io.gpupool.pool.Pool;
import io.gpupool.quota.Quota;
import io.gpupool.tenant.Tenant;

import java.util.List;

/** A validated fleet document turned into domain records, in dependency order. */
record ResolvedFleet(List<Site> sites, List<Cluster> clusters, List<Pool> pools, List<Node> nodes,
                     List<Device> devices, List<Tenant> tenants, List<Quota> quotas) {
}
