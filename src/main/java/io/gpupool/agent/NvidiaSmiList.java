package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi -L}, the one output that names each MIG device's profile and UUID
 * ({@code MIG 3g.40gb Device 0: (UUID: MIG-…)}), and adds them to a capture's GPUs: the query CSV
 * has no MIG instances at all, and the XML of DTD v12 lists them without profile.
 */
public final class NvidiaSmiList {
    static final Pattern GPU = Pattern.compile("^GPU (\\d+): (.*?) \\(UUID: ([^)]+)\\)\\s*$");
    static final Pattern MIG = Pattern.compile("^\\s+MIG (\\S+)\\s+Device\\s+(\\d+): \\(UUID: ([^)]+)\\)\\s*$");

    private NvidiaSmiList() {
    }

    /** The capture with the MIG devices {@code nvidia-smi -L} printed ({@code listing}; null: unchanged). */
    public static Capture withListing(Capture capture, String listing) {
        return listing == null ? capture : apply(capture, List.of(listing.split("\\R")));
    }

    /** Whether {@code line} is part of an {@code nvidia-smi -L} listing. */
    static boolean isListing(String line) {
        return GPU.matcher(line).matches() || MIG.matcher(line).matches();
    }

    /** Per GPU UUID, its MIG devices in listing order (profile and UUID; no instance id, no memory). */
    static Map<String, List<MigInstance>> read(List<String> lines) {
        Map<String, List<MigInstance>> byGpu = new HashMap<>();
        String current = null;
        for (String line : lines) {
            Matcher g = GPU.matcher(line);
            Matcher m = MIG.matcher(line);
            if (g.matches()) {
                current = g.group(3).trim();
                byGpu.put(current, new ArrayList<>());
            } else if (m.matches() && current != null) {
                String profile = m.group(1);
                byGpu.get(current).add(new MigInstance(null, profile, Readings.profileMemoryMib(profile), m.group(3).trim(), null));
            }
        }
        return byGpu;
    }

    /**
     * The capture with each GPU's MIG devices named by the listing: matched by position to the
     * instances the capture already has (the XML lists MIG devices in the same order), or added.
     */
    static Capture apply(Capture capture, List<String> listing) {
        Map<String, List<MigInstance>> byGpu = read(listing);
        if (byGpu.isEmpty()) {
            return capture;
        }
        List<Gpu> gpus = new ArrayList<>();
        for (Gpu gpu : capture.gpus()) {
            List<MigInstance> listed = byGpu.getOrDefault(gpu.uuid(), List.of());
            if (listed.isEmpty()) {
                gpus.add(gpu);
                continue;
            }
            List<MigInstance> merged = new ArrayList<>();
            for (int i = 0; i < Math.max(listed.size(), gpu.migInstances().size()); i++) {
                MigInstance have = i < gpu.migInstances().size() ? gpu.migInstances().get(i) : null;
                MigInstance named = i < listed.size() ? listed.get(i) : null;
                merged.add(have == null ? named : named == null ? have
                        : new MigInstance(have.gpuInstanceId(), named.profile(),
                        have.memoryMib() != null ? have.memoryMib() : named.memoryMib(), named.uuid(), have.activity()));
            }
            gpus.add(new Gpu(gpu.index(), gpu.uuid(), gpu.pciBusId(), gpu.productName(), gpu.model(), gpu.memoryMib(),
                    gpu.migEnabled(), merged, gpu.nvlinkPeers(), gpu.health(), gpu.activity()));
        }
        return new Capture(capture.source(), capture.driverVersion(), capture.cudaVersion(), gpus);
    }
}
