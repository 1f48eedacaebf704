package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.catalog.CardCatalog;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code nvidia-smi --query-gpu=… --format=csv}, optionally followed by {@code nvidia-smi -L}
 * (the agent runs both: only the listing names MIG devices). Columns are found by name, so any
 * field list with at least {@code uuid} and {@code name} is read; a header's unit
 * ({@code memory.total [MiB]}) is checked against the values, and {@code nounits} output is read too.
 */
public final class NvidiaSmiCsv {
    public static final String SOURCE = "nvidia-smi-csv";

    /** The fields the agent asks for. */
    public static final List<String> QUERY_FIELDS = List.of("index", "uuid", "name", "pci.bus_id", "driver_version",
            "memory.total", "memory.used", "utilization.gpu", "mig.mode.current", "temperature.gpu", "power.draw",
            "ecc.errors.corrected.volatile.total", "ecc.errors.uncorrected.volatile.total",
            "retired_pages.single_bit_ecc.count", "retired_pages.double_bit.count", "remapped_rows.correctable",
            "remapped_rows.uncorrectable", "clocks_event_reasons.sw_power_cap", "clocks_event_reasons.hw_slowdown",
            "clocks_event_reasons.hw_thermal_slowdown", "clocks_event_reasons.sw_thermal_slowdown",
            "clocks_event_reasons.hw_power_brake_slowdown");

    private NvidiaSmiCsv() {
    }

    public static Capture parse(String text, CardCatalog catalog) {
        List<String> csv = new ArrayList<>();
        List<String> listing = new ArrayList<>();
        for (String line : text.split("\\R")) {
            if (NvidiaSmiList.isListing(line)) {
                listing.add(line);
            } else if (!line.isBlank()) {
                csv.add(line);
            }
        }
        if (csv.isEmpty()) {
            throw new ReportFormatException("nvidia-smi CSV: no header line");
        }
        List<Gpu> gpus = new ArrayList<>();
        String driver = null;
        CSVFormat format = CSVFormat.DEFAULT.builder().setIgnoreSurroundingSpaces(true).setTrim(true).build();
        try (CSVParser parser = CSVParser.parse(new StringReader(String.join("\n", csv)), format)) {
            List<CSVRecord> records = parser.getRecords();
            Map<String, Integer> column = new HashMap<>();
            Map<String, String> unit = new HashMap<>();
            CSVRecord header = records.get(0);
            for (int i = 0; i < header.size(); i++) {
                String name = header.get(i);
                int bracket = name.indexOf(" [");
                String key = bracket < 0 ? name : name.substring(0, bracket);
                column.put(key, i);
                if (bracket >= 0 && name.endsWith("]")) {
                    unit.put(key, name.substring(bracket + 2, name.length() - 1));
                }
            }
            for (String required : List.of("uuid", "name")) {
                if (!column.containsKey(required)) {
                    throw new ReportFormatException("nvidia-smi CSV line 1: no column '" + required
                            + "' (the header names " + header.size() + " columns)");
                }
            }
            for (int r = 1; r < records.size(); r++) {
                CSVRecord rec = records.get(r);
                int line = r + 1;
                if (rec.size() != header.size()) {
                    throw new ReportFormatException("nvidia-smi CSV line " + line + ": " + rec.size()
                            + " values for " + header.size() + " columns");
                }
                Row row = new Row(rec, column, line);
                driver = driver != null ? driver : Readings.text(row.raw("driver_version"));
                gpus.add(gpu(row, r - 1, catalog));
            }
        } catch (IOException | IllegalStateException | java.io.UncheckedIOException e) {
            throw new ReportFormatException("nvidia-smi CSV cannot be read: " + e.getMessage(), e);
        }
        return NvidiaSmiList.apply(new Capture(SOURCE, driver, null, gpus), listing);
    }

    private static Gpu gpu(Row row, int position, CardCatalog catalog) {
        String product = Readings.text(row.raw("name"));
        Long idx = row.whole("index", "");
        Long used = row.whole("memory.used", "MiB");
        Health health = new Health(null, row.whole("ecc.errors.corrected.volatile.total", ""),
                row.whole("ecc.errors.uncorrected.volatile.total", ""),
                Readings.sum(row.whole("retired_pages.single_bit_ecc.count", ""), row.whole("retired_pages.double_bit.count", "")),
                Readings.sum(row.whole("remapped_rows.correctable", ""), row.whole("remapped_rows.uncorrectable", "")),
                row.activeReasons(), row.number("temperature.gpu", "C"),
                row.number("power.draw", "W") != null ? row.number("power.draw", "W") : row.number("power.draw.instant", "W"));
        return new Gpu(idx == null ? position : idx.intValue(), Readings.text(row.raw("uuid")),
                Readings.text(row.raw("pci.bus_id")), product, catalog.resolve(product).canonicalName(),
                row.whole("memory.total", "MiB"), Readings.enabled(row.at("mig.mode.current"), row.raw("mig.mode.current")),
                List.of(), List.of(), health, Activity.of(null, null, row.percent("utilization.gpu"), used));
    }

    private record Row(CSVRecord record, Map<String, Integer> column, int line) {
        String raw(String key) {
            Integer i = column.get(key);
            return i == null ? null : record.get(i);
        }

        String at(String key) {
            return "nvidia-smi CSV line " + line + ", " + key;
        }

        Double number(String key, String unit) {
            return Readings.number(at(key), raw(key), unit);
        }

        Long whole(String key, String unit) {
            return Readings.whole(at(key), raw(key), unit);
        }

        Double percent(String key) {
            return Readings.percent(at(key), raw(key));
        }

        List<String> activeReasons() {
            List<String> active = new ArrayList<>();
            column.forEach((key, i) -> {
                String prefix = key.startsWith("clocks_event_reasons.") ? "clocks_event_reasons."
                        : key.startsWith("clocks_throttle_reasons.") ? "clocks_throttle_reasons." : null;
                if (prefix != null && "Active".equalsIgnoreCase(record.get(i).trim())) {
                    active.add(key.substring(prefix.length()));
                }
            });
            active.sort(null);
            return active;
        }
    }
}
