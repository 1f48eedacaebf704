package io.gpupool.fleet;

import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;

import java.util.List;

/** A validated fleet document turned into domain records, in dependency order. */
record ResolvedFleet(List<Site> sites, List<Cluster> clusters, List<Pool> pools, List<Node> nodes,
                     List<Device> devices, List<Tenant> tenants, List<Quota> quotas) {
}
