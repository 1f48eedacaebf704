package io.gpupool.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test fixture: small trace files written to a temp folder, in the Alibaba v2023 format. */
final class TraceFiles {
    static final String NODE_HEADER = "sn,cpu_milli,memory_mib,gpu,model";
    static final String POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
            + "creation_time,deletion_time,scheduled_time";
    static final Path REAL = Path.of("traces", "alibaba-gpu-v2023");

    private TraceFiles() {
    }

    static Path write(Path dir, String name, String header, List<String> rows) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(header);
        lines.addAll(rows);
        return Files.write(dir.resolve(name), lines);
    }

    static String pod(String name, long cpu, long mem, int gpus, int milli, String spec) {
        return name + "," + cpu + "," + mem + "," + gpus + "," + milli + "," + spec + ",LS,Running,0,1,0";
    }

    /** The first {@code count} data rows of a real trace file, header kept. */
    static Path slice(Path real, Path dir, String name, int count) throws IOException {
        List<String> lines = Files.readAllLines(real);
        return Files.write(dir.resolve(name), lines.subList(0, Math.min(lines.size(), count + 1)));
    }
}
