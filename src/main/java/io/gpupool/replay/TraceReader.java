package io.gpupool.replay;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the Alibaba GPU trace v2023 CSV files (columns by header name, so the 5-column multigpu
 * lists work too). Every malformed row fails the whole read with file and line; nothing is guessed.
 */
public final class TraceReader {
    private TraceReader() {
    }

    public static List<TraceNode> nodes(Path file) {
        List<TraceNode> nodes = new ArrayList<>();
        read(file, List.of("sn", "cpu_milli", "memory_mib", "gpu", "model"), (row, line) -> {
            int gpus = (int) number(row, "gpu", file, line, 0, 64);
            String model = row.get("model").trim();
            if (gpus > 0 && (model.isEmpty() || model.equals("nan"))) {
                throw new TraceFormatException(file, line, "node with GPUs has no model");
            }
            nodes.add(new TraceNode(text(row, "sn", file, line), number(row, "cpu_milli", file, line, 0, Long.MAX_VALUE),
                    number(row, "memory_mib", file, line, 0, Long.MAX_VALUE), gpus, model));
        });
        return nodes;
    }

    public static List<TracePod> pods(Path file) {
        List<TracePod> pods = new ArrayList<>();
        read(file, List.of("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"), (row, line) -> {
            int numGpu = (int) number(row, "num_gpu", file, line, 0, 64);
            int gpuMilli = (int) number(row, "gpu_milli", file, line, 0, 1000);
            if (numGpu > 0 && gpuMilli == 0) {
                throw new TraceFormatException(file, line, "num_gpu=" + numGpu + " but gpu_milli=0");
            }
            if (numGpu > 1 && gpuMilli != 1000) {
                throw new TraceFormatException(file, line, "multi-GPU pod must take whole GPUs, gpu_milli=" + gpuMilli);
            }
            pods.add(new TracePod(text(row, "name", file, line), number(row, "cpu_milli", file, line, 0, Long.MAX_VALUE),
                    number(row, "memory_mib", file, line, 0, Long.MAX_VALUE), numGpu, numGpu == 0 ? 0 : gpuMilli,
                    models(row.getOrDefault("gpu_spec", ""))));
        });
        return pods;
    }

    private static Set<String> models(String spec) {
        Set<String> models = new LinkedHashSet<>();
        String s = spec.trim();
        if (s.isEmpty() || s.equals("nan")) {
            return models;
        }
        for (String m : s.split("\\|")) {
            if (!m.isBlank()) {
                models.add(m.trim());
            }
        }
        return models;
    }

    private interface RowHandler {
        void accept(Map<String, String> row, int line);
    }

    private static void read(Path file, List<String> required, RowHandler handler) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = in.readLine();
            if (header == null) {
                throw new TraceFormatException(file, 1, "empty file, expected a header");
            }
            String[] columns = split(header);
            for (String r : required) {
                if (!List.of(columns).contains(r)) {
                    throw new TraceFormatException(file, 1, "missing column '" + r + "' in header " + header);
                }
            }
            String text;
            int line = 1;
            Map<String, String> row = new HashMap<>();
            while ((text = in.readLine()) != null) {
                line++;
                if (text.isBlank()) {
                    continue;
                }
                String[] cells = split(text);
                if (cells.length != columns.length) {
                    throw new TraceFormatException(file, line, "expected " + columns.length + " fields, found " + cells.length);
                }
                row.clear();
                for (int i = 0; i < columns.length; i++) {
                    row.put(columns[i], cells[i]);
                }
                handler.accept(row, line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static String[] split(String line) {
        String[] cells = line.replace("\r", "").split(",", -1);
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i].trim();
            cells[i] = c.length() >= 2 && c.startsWith("\"") && c.endsWith("\"") ? c.substring(1, c.length() - 1) : c;
        }
        return cells;
    }

    private static String text(Map<String, String> row, String column, Path file, int line) {
        String v = row.get(column);
        if (v == null || v.isEmpty()) {
            throw new TraceFormatException(file, line, "empty '" + column + "'");
        }
        return v;
    }

    private static long number(Map<String, String> row, String column, Path file, int line, long min, long max) {
        String v = row.get(column);
        long value;
        try {
            value = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new TraceFormatException(file, line, "'" + column + "' is not an integer: '" + v + "'");
        }
        if (value < min || value > max) {
            throw new TraceFormatException(file, line, "'" + column + "' out of range [" + min + ", " + max + "]: " + value);
        }
        return value;
    }
}
