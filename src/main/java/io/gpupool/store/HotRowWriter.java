package io.gpupool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Function;

/**
 * Writes a flushed {@link RowBuffer}'s hot rows in plain JDBC: one multi-row {@code INSERT ... VALUES
 * (...), (...)} per table and one batched {@code UPDATE} per table, on the batch's own connection.
 *
 * <p>Why not the repositories: at a few thousand writes a second the group-commit leader spent
 * about a fifth of its time in Micronaut Data's per-row, reflective binding and in reading back
 * generated keys nobody uses (decision log and share ids), and PostgreSQL ran one executor per row.
 * A multi-row insert is one statement for the whole batch; the SQL is plain SQL that H2 and
 * PostgreSQL both accept, so both databases take the same path. Columns are listed here and in the
 * Flyway migrations; {@code HotRowWriterTest} reads every column back through the repositories.
 */
final class HotRowWriter {
    /** Rows per INSERT statement: keeps the parameter count (rows × columns) far below driver limits. */
    private static final int MAX_ROWS_PER_INSERT = 64;

    /**
     * One table's hot columns: name, SQL type (for nulls) and how a row gives its value. Its SQL is
     * built once, not on every flush: the UPDATE, and each INSERT by its row count.
     */
    static final class Table<T> {
        private final String name;
        private final List<Column<T>> columns;
        private final Column<T> key; // null: the table is only inserted into (identity key)
        private final String update;
        private final String insertPrefix;
        private final String rowPlaceholders;
        private final String[] insertByRows = new String[MAX_ROWS_PER_INSERT + 1]; // filled as first needed

        Table(String name, String key, List<Column<T>> columns) {
            this.name = name;
            this.columns = columns;
            this.key = columns.stream().filter(c -> c.name().equals(key)).findFirst().orElse(null);
            this.update = "UPDATE " + name + " SET " + String.join(", ", columns.stream()
                    .filter(c -> c != this.key).map(c -> c.name() + " = ?").toList()) + " WHERE " + key + " = ?";
            this.insertPrefix = "INSERT INTO " + name + " (" + String.join(", ", columns.stream().map(Column::name).toList())
                    + ") VALUES ";
            this.rowPlaceholders = "(" + String.join(", ", java.util.Collections.nCopies(columns.size(), "?")) + ")";
        }

        /** Racy but safe: every thread builds the same immutable string. */
        String insert(int rows) {
            String sql = insertByRows[rows];
            if (sql == null) {
                sql = insertPrefix + String.join(", ", java.util.Collections.nCopies(rows, rowPlaceholders));
                insertByRows[rows] = sql;
            }
            return sql;
        }
    }

    record Column<T>(String name, int sqlType, Function<T, Object> value) {
    }

    private HotRowWriter() {
    }

    /** Inserts {@code rows}; the first statement also carries the transaction's epoch read when one is pending. */
    static <T> void insert(Connection connection, Table<T> table, List<T> rows, EpochCheck epoch) throws SQLException {
        for (int from = 0; from < rows.size(); from += MAX_ROWS_PER_INSERT) {
            List<T> chunk = rows.subList(from, Math.min(rows.size(), from + MAX_ROWS_PER_INSERT));
            String read = epoch.pendingRead();
            String sql = table.insert(chunk.size());
            try (PreparedStatement insert = connection.prepareStatement(read == null ? sql : read + "; " + sql)) {
                int index = 1;
                for (T row : chunk) {
                    for (Column<T> column : table.columns) {
                        bind(insert, index++, column, row);
                    }
                }
                int inserted;
                if (read == null) {
                    inserted = insert.executeUpdate();
                } else {
                    insert.execute(); // one round-trip: the epoch read, then the insert
                    try (var epochRead = insert.getResultSet()) {
                        epoch.read(epochRead);
                    }
                    insert.getMoreResults();
                    inserted = insert.getUpdateCount();
                }
                if (inserted != chunk.size()) {
                    throw new SQLException(table.name + ": inserted " + inserted + " of " + chunk.size() + " rows");
                }
            }
        }
    }

    /** Updates every row by its key; a row that is not there fails the flush (a lost update is a bug). */
    static <T> void update(Connection connection, Table<T> table, List<T> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        Column<T> key = table.key;
        try (PreparedStatement update = connection.prepareStatement(table.update)) {
            for (T row : rows) {
                int index = 1;
                for (Column<T> column : table.columns) {
                    if (column != key) {
                        bind(update, index++, column, row);
                    }
                }
                bind(update, index, key, row);
                update.addBatch();
            }
            int[] counts = update.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] != 1 && counts[i] != Statement.SUCCESS_NO_INFO) {
                    throw new SQLException(table.name + ": update of " + key.value().apply(rows.get(i))
                            + " changed " + counts[i] + " rows");
                }
            }
        }
    }

    private static <T> void bind(PreparedStatement statement, int index, Column<T> column, T row) throws SQLException {
        Object value = column.value().apply(row);
        if (value == null) {
            statement.setNull(index, column.sqlType());
        } else if (value instanceof Instant instant) {
            statement.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        } else {
            statement.setObject(index, value, column.sqlType());
        }
    }

    static <T> Column<T> column(String name, int sqlType, Function<T, Object> value) {
        return new Column<>(name, sqlType, value);
    }

    static final int TEXT = Types.VARCHAR;
    static final int INT = Types.INTEGER;
    static final int LONG = Types.BIGINT;
    static final int BOOL = Types.BOOLEAN;
    static final int TIME = Types.TIMESTAMP_WITH_TIMEZONE;
    static final int REAL = Types.DOUBLE;
}
