package io.gpupool.request;

import io.gpupool.testing.Api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/** What concurrent clients were answered, kept thread-safe so a test can compare it with the database afterwards. */
final class LoadRecord {
    private final Set<String> requestIds = ConcurrentHashMap.newKeySet();
    private final Set<String> rejected = ConcurrentHashMap.newKeySet();
    private final Map<String, String> placedLeases = new ConcurrentHashMap<>();
    private final Map<String, List<String>> keys = new ConcurrentSkipListMap<>();
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentSkipListMap<>();
    private final List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Integer> queuedBecause = new ConcurrentSkipListMap<>();
    private final AtomicInteger submits = new AtomicInteger();
    private final AtomicInteger releases = new AtomicInteger();
    private final AtomicInteger cancels = new AtomicInteger();

    void submitted(Map<String, Object> body, Api.Reply reply, String key) {
        submits.incrementAndGet();
        statuses.computeIfAbsent(reply.status(), s -> new AtomicInteger()).incrementAndGet();
        String id = reply.status() == 422 ? reply.body().path("requestId").asText(null)
                : reply.body().at("/request/id").asText(null);
        if (!Set.of(201, 202, 422).contains(reply.status()) || id == null) {
            unexpected.add("submit " + body + " -> " + reply.status() + " " + reply.body());
            return;
        }
        requestIds.add(id);
        if (reply.status() == 422) {
            rejected.add(id);
        }
        if (reply.status() == 202) {
            queuedBecause.merge(reply.body().at("/request/whyPending/blockedBy").asText(), 1, Integer::sum);
        }
        if (reply.status() == 201) {
            placedLeases.put(reply.body().at("/lease/id").asText(), id);
        }
        if (key != null) {
            keys.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(id);
        }
    }

    /** A release answers 200, or 409 when the lease was preempted or reclaimed meanwhile. */
    void released(Api.Reply reply) {
        releases.incrementAndGet();
        expect("release", reply, 200, 409);
    }

    /** A cancel answers 200, or 409 when the request ended meanwhile. */
    void cancelled(Api.Reply reply) {
        cancels.incrementAndGet();
        expect("cancel", reply, 200, 409);
    }

    private void expect(String what, Api.Reply reply, int... allowed) {
        for (int a : allowed) {
            if (reply.status() == a) {
                return;
            }
        }
        unexpected.add(what + " -> " + reply.status() + " " + reply.body());
    }

    int submits() { return submits.get(); }
    int releases() { return releases.get(); }
    int cancels() { return cancels.get(); }
    Set<String> requestIds() { return new java.util.TreeSet<>(requestIds); }
    Set<String> rejectedIds() { return rejected; }
    Map<String, String> placedLeases() { return placedLeases; }
    Map<String, List<String>> keys() { return keys; }
    List<String> unexpected() { return unexpected; }
    /** Queued answers by what blocked them (CAPACITY, QUOTA, PREEMPTION_GRACE, ...). */
    Map<String, Integer> queuedBecause() { return queuedBecause; }

    Map<Integer, Integer> statusCounts() {
        Map<Integer, Integer> counts = new TreeMap<>();
        statuses.forEach((s, n) -> counts.put(s, n.get()));
        return counts;
    }
}
