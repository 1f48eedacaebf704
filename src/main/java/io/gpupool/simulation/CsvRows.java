package io.gpupool.simulation;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.function.Consumer;

/**
 * The rows of a replay input CSV (RFC 4180, a header line), each read through typed accessors
 * that name the file, line and column of a value that does not parse.
 */
final class CsvRows {
    private CsvRows() {
    }

    /** One data row; {@code line} is its line in the file (the header is line 1). */
    record Row(String file, int line, CSVRecord record) {
        String text(String column) {
            String value = record.isMapped(column) && record.isSet(column) ? record.get(column).trim() : "";
            if (value.isEmpty()) {
                throw new WorkloadInputException(file, line, column, "required, but empty");
            }
            return value;
        }

        String optional(String column) {
            String value = record.isMapped(column) && record.isSet(column) ? record.get(column).trim() : "";
            return value.isEmpty() ? null : value;
        }

        long number(String column, long min, long max) {
            return parse(column, text(column), min, max);
        }

        Long optionalNumber(String column, long min, long max) {
            String value = optional(column);
            return value == null ? null : parse(column, value, min, max);
        }

        double fraction(String column) {
            String value = optional(column);
            if (value == null) {
                return Double.NaN;
            }
            try {
                double d = Double.parseDouble(value);
                if (d < 0 || d > 1 || Double.isNaN(d)) {
                    throw new WorkloadInputException(file, line, column, "must be between 0 and 1, was " + value);
                }
                return d;
            } catch (NumberFormatException e) {
                throw new WorkloadInputException(file, line, column, "not a number: '" + excerpt(value) + "'");
            }
        }

        Instant instant(String column) {
            String value = text(column);
            try {
                return Instant.parse(value);
            } catch (DateTimeParseException e) {
                throw new WorkloadInputException(file, line, column, "not an ISO-8601 instant such as 2026-03-02T09:00:00Z: '"
                        + excerpt(value) + "'");
            }
        }

        private long parse(String column, String value, long min, long max) {
            try {
                long n = Long.parseLong(value);
                if (n < min || n > max) {
                    throw new WorkloadInputException(file, line, column, "must be between " + min + " and " + max + ", was " + n);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new WorkloadInputException(file, line, column, "not a whole number: '" + excerpt(value) + "'");
            }
        }
    }

    /** Reads {@code text} (named {@code file}), requiring the {@code required} columns, and hands each row on. */
    static void read(String file, String text, List<String> required, Consumer<Row> each) {
        read(file, new StringReader(text), required, each);
    }

    static void read(String file, Reader in, List<String> required, Consumer<Row> each) {
        CSVFormat format = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).setTrim(true)
                .setIgnoreEmptyLines(true).build();
        try (CSVParser parser = CSVParser.parse(in, format)) {
            for (String column : required) {
                if (!parser.getHeaderMap().containsKey(column)) {
                    throw new WorkloadInputException(file, 1, column, "the header has no such column (it has "
                            + String.join(",", parser.getHeaderNames()) + ")");
                }
            }
            for (CSVRecord record : parser) {
                each.accept(new Row(file, (int) parser.getCurrentLineNumber(), record));
            }
        } catch (IOException | UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
            throw new WorkloadInputException(file, 0, null, "not a CSV file with a header line: " + e.getMessage());
        }
    }

    static String excerpt(String value) {
        return value.length() > 40 ? value.substring(0, 40) + "…" : value;
    }
}
