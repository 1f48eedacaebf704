package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A plain-text table for people: a header row in capitals, columns padded to their widest cell,
 * a cell longer than {@link #MAX_CELL} shortened with "…" (but for the last column, printed whole). Scripts use {@code -o json} instead.
 */
final class Table {
    static final int MAX_CELL = 80;

    record Column(String header, Function<JsonNode, String> cell) {
    }

    private final List<Column> columns = new ArrayList<>();

    static Table of() {
        return new Table();
    }

    List<Column> columns() {
        return List.copyOf(columns);
    }

    /** A column showing the text at a JSON pointer ("/poolId", "/card/family"); "-" when absent. */
    Table column(String header, String pointer) {
        return column(header, node -> text(node.at(pointer)));
    }

    Table column(String header, Function<JsonNode, String> cell) {
        columns.add(new Column(header, cell));
        return this;
    }

    /** The same columns as CSV (RFC 4180, a header row, every cell whole), for spreadsheets and scripts. */
    void printCsv(Iterable<JsonNode> rows, PrintWriter out) throws java.io.IOException {
        // Not closed: the writer is the caller's (standard output stays open for what follows).
        org.apache.commons.csv.CSVPrinter csv = new org.apache.commons.csv.CSVPrinter(out, org.apache.commons.csv.CSVFormat.RFC4180);
        csv.printRecord(columns.stream().map(Column::header).toList());
        for (JsonNode row : rows) {
            csv.printRecord(columns.stream().map(c -> c.cell().apply(row)).toList());
        }
        csv.flush();
    }

    void print(Iterable<JsonNode> rows, PrintWriter out) {
        List<String[]> lines = new ArrayList<>();
        String[] header = new String[columns.size()];
        for (int i = 0; i < header.length; i++) {
            header[i] = columns.get(i).header();
        }
        lines.add(header);
        for (JsonNode row : rows) {
            String[] cells = new String[columns.size()];
            for (int i = 0; i < cells.length; i++) {
                String cell = columns.get(i).cell().apply(row);
                cells[i] = i == cells.length - 1 ? oneLine(cell) : shorten(cell);
            }
            lines.add(cells);
        }
        int[] widths = new int[columns.size()];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        for (String[] line : lines) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < line.length; i++) {
                sb.append(line[i]);
                if (i < line.length - 1) {
                    sb.append(" ".repeat(widths[i] - line[i].length() + 2));
                }
            }
            out.println(sb.toString().stripTrailing());
        }
        out.flush();
    }

    /** Text of a JSON value: "-" for null or absent, an array's items comma-separated, an object as k=v. */
    static String text(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return "-";
        }
        if (node.isArray()) {
            List<String> items = new ArrayList<>();
            node.forEach(n -> items.add(text(n)));
            return items.isEmpty() ? "-" : String.join(",", items);
        }
        if (node.isObject()) {
            List<String> items = new ArrayList<>();
            node.fields().forEachRemaining(e -> items.add(e.getKey() + "=" + text(e.getValue())));
            return items.isEmpty() ? "-" : String.join(",", items);
        }
        return node.asText();
    }

    private static String oneLine(String s) {
        return s == null ? "-" : s.replace('\n', ' ');
    }

    private static String shorten(String s) {
        String one = oneLine(s);
        return one.length() <= MAX_CELL ? one : one.substring(0, MAX_CELL - 1) + "…";
    }
}
