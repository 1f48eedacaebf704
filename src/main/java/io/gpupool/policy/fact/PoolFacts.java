package io.gpupool.policy.fact;

import io.gpupool.inventory.Device;
import io.gpupool.pool.Pool;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Summarises pools: only schedulable devices count as capacity, so a broken card is not "free". */
final class PoolFacts {
    private PoolFacts() {
    }

    static List<PoolFact> summarise(PoolSnapshot snapshot) {
        Map<String, Totals> byPool = new HashMap<>();
        for (Device d : snapshot.devices().values()) {
            if (d.poolId() == null || !d.health().schedulable()) {
                continue;
            }
            Totals t = byPool.computeIfAbsent(d.poolId(), k -> new Totals());
            t.devices++;
            t.capacity += 1000;
            t.free += snapshot.freeMilli(d.id());
            t.capacityByModel.merge(d.model(), 1000L, Long::sum);
            t.freeByModel.merge(d.model(), (long) snapshot.freeMilli(d.id()), Long::sum);
            t.maxMemory = Math.max(t.maxMemory, d.memoryMib());
        }
        List<PoolFact> facts = new ArrayList<>();
        for (Pool p : snapshot.pools().values()) {
            Totals t = byPool.getOrDefault(p.id(), new Totals());
            facts.add(new PoolFact(p.id(), p.name(), p.tier().name(), p.sharingAllowed(), t.devices, t.capacity,
                    t.free, t.capacityByModel, t.freeByModel, t.maxMemory));
        }
        return List.copyOf(facts);
    }

    private static final class Totals {
        int devices;
        long capacity;
        long free;
        long maxMemory;
        final Map<String, Long> capacityByModel = new HashMap<>();
        final Map<String, Long> freeByModel = new HashMap<>();
    }
}
