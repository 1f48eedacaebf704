package io.gpupool.accounting;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PoolCapacity;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.allocator.Topology;
import io.gpupool.allocator.WorkloadMix;
import io.gpupool.store.OperatingHistory;
import io.gpupool.store.OperatingHistory.FragmentationSample;
import io.gpupool.store.OperatingHistory.Shape;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Records the pools' fragmentation every {@code gpupool.reports.fragmentation.sample-every} (5 min)
 * into {@code fragmentation_sample}, keeping {@code gpupool.reports.fragmentation.retention} (90
 * days). Fragmentation is a property of the pool's state at an instant, which the ledger does not
 * keep, so it is sampled; each sample is the allocator's own {@link PoolCapacity} (the FGD measure
 * and the largest whole-GPU gangs) over the committed snapshot, against the workload mix of the most
 * recent {@code gpupool.reports.fragmentation.mix-requests} (1,000) requests, memory-aware with the
 * paper's 95 % coverage as the placement strategies' own estimate.
 */
@Singleton
public class FragmentationSampler {
    private static final Logger LOG = LoggerFactory.getLogger(FragmentationSampler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final WorkingSet workingSet;
    private final OperatingHistory history;
    private final Clock clock;
    private final Duration retention;
    private final int mixRequests;

    FragmentationSampler(WorkingSet workingSet, OperatingHistory history, Clock clock,
                         @Value("${gpupool.reports.fragmentation.retention:90d}") Duration retention,
                         @Value("${gpupool.reports.fragmentation.mix-requests:1000}") int mixRequests) {
        this.workingSet = workingSet;
        this.history = history;
        this.clock = clock;
        this.retention = retention;
        this.mixRequests = mixRequests;
    }

    @Scheduled(fixedDelay = "${gpupool.reports.fragmentation.sample-every:5m}",
            initialDelay = "${gpupool.reports.fragmentation.sample-every:5m}")
    void onSchedule() {
        try {
            sample();
        } catch (RuntimeException e) {
            // A missed sample leaves a gap in the report; it must not stop the next one.
            LOG.warn("Fragmentation sample failed: {}", e.getMessage(), e);
        }
    }

    /** Takes and records one sample now; returns its rows (one per pool). */
    public List<FragmentationSample> sample() {
        long now = clock.millis();
        List<Shape> shapes = history.recentShapes(mixRequests);
        List<PlacementRequest> recent = new ArrayList<>(shapes.size());
        for (Shape s : shapes) {
            recent.add(new PlacementRequest("mix", s.gangSize(), s.gpus() / s.gangSize(), s.milliPerGpu(), null,
                    models(s.allowedModels()), Set.of(), 0, 0, 0, Topology.NONE, Set.of(), Set.of()));
        }
        WorkloadMix mix = WorkloadMix.fromRequests(recent, WorkloadMix.PAPER_COVERAGE, true);
        CapacityView view = SnapshotCapacity.of(workingSet.current());
        List<FragmentationSample> rows = new ArrayList<>();
        for (PoolCapacity pool : PoolCapacity.of(view, mix)) {
            if (pool.pool().isEmpty()) {
                continue; // cards in no pool place nothing
            }
            int whole = 0;
            int largest = 0;
            for (PoolCapacity.ModelCapacity m : pool.models()) {
                whole = Math.max(whole, m.wholeFreeGpus());
                largest = Math.max(largest, m.largestMemberGpus());
            }
            rows.add(new FragmentationSample(now, pool.pool(), pool.freeMilli(), Math.round(pool.fragmentMilli()), whole,
                    largest, recent.size()));
        }
        history.recordFragmentation(rows, now - retention.toMillis());
        return rows;
    }

    private static Set<String> models(String json) {
        try {
            return Set.copyOf(JSON.readValue(json, new TypeReference<List<String>>() { }));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("corrupt allowed models " + json, e);
        }
    }
}
