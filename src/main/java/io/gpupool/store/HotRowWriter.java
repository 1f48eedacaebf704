package io.gpupool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Writes a flushed {@link RowBuffer}'s hot rows in plain JDBC, on the batch's own connection: one
 * multi-row {@code INSERT ... VALUES (...), (...)} per table and one {@code UPDATE} per updated row,
 * all of them in one round-trip on PostgreSQL ({@link #run}).
 *
 * <p>Why not the repositories: at a few thousand writes a second the group-commit leader spent
 * about a fifth of its time in Micronaut Data's per-row, reflective binding and in reading back
 * generated keys nobody uses (decision log and share ids), and PostgreSQL ran one executor per row.
 * A multi-row insert is one statement for the whole batch; the SQL is plain SQL that H2 and
 * PostgreSQL both accept, so both databases take the same path. Columns are listed here and in the
 * Flyway migrations; {@code HotRowWriterTest} reads every column back through the repositories.
 */
final class HotRowWriter {
    private static final String POSTGRESQL = "PostgreSQL";
    /** Below pgjdbc's 65,535 parameters per prepared statement, counted over all its statements. */
    static final int MAX_PARAMETERS_PER_ROUND_TRIP = 60_000;
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

    /** One table's rows for one statement (an insert) or one statement per row (an update by key). */
    private record Step<T>(Table<T> table, List<T> rows, boolean update) {
        int statements() {
            return update ? rows.size() : 1;
        }

        String sql() {
            return update ? table.update : table.insert(rows.size());
        }

        /** Parameters one of its statements binds. */
        int parameters() {
            return update ? table.columns.size() : rows.size() * table.columns.size();
        }

        /** Binds statement {@code statement} of this step from {@code index} on; returns the next free index. */
        int bindStatement(PreparedStatement s, int index, int statement) throws SQLException {
            if (!update) {
                for (T row : rows) {
                    for (Column<T> column : table.columns) {
                        HotRowWriter.bind(s, index++, column, row);
                    }
                }
                return index;
            }
            T row = rows.get(statement);
            for (Column<T> column : table.columns) {
                if (column != table.key) {
                    HotRowWriter.bind(s, index++, column, row);
                }
            }
            HotRowWriter.bind(s, index++, table.key, row);
            return index;
        }

        /** A statement's update count: every row inserted, and exactly one row per update (a lost update is a bug). */
        void check(int statement, int count) throws SQLException {
            if (!update && count != rows.size()) {
                throw new SQLException(table.name + ": inserted " + count + " of " + rows.size() + " rows");
            }
            if (update && count != 1 && count != Statement.SUCCESS_NO_INFO) {
                throw new SQLException(table.name + ": update of " + table.key.value().apply(rows.get(statement))
                        + " changed " + count + " rows");
            }
        }
    }

    private final List<Step<?>> steps = new ArrayList<>();

    /** Adds the inserts of {@code rows}, up to {@link #MAX_ROWS_PER_INSERT} to a statement. */
    <T> HotRowWriter insert(Table<T> table, List<T> rows) {
        for (int from = 0; from < rows.size(); from += MAX_ROWS_PER_INSERT) {
            steps.add(new Step<>(table, rows.subList(from, Math.min(rows.size(), from + MAX_ROWS_PER_INSERT)), false));
        }
        return this;
    }

    /** Adds an update by key of every row in {@code rows}; one that is not in the database fails the flush. */
    <T> HotRowWriter update(Table<T> table, List<T> rows) {
        if (!rows.isEmpty()) {
            steps.add(new Step<>(table, rows, true));
        }
        return this;
    }

    /**
     * Runs the statements in the order added. On PostgreSQL all of them, led by the transaction's
     * epoch read when one is pending, go out as one multi-statement prepared statement: the driver
     * sends them together and the server answers once, so a flush costs one round-trip however many
     * tables and rows it holds. Each statement still runs on its own snapshot and reports its own
     * count, checked here. pgjdbc allows 65,535 parameters per prepared statement across all its
     * statements, so a flush larger than {@link #MAX_PARAMETERS_PER_ROUND_TRIP} (thousands of
     * updates: a batch of mass preemptions) takes one more round-trip per such part. Elsewhere
     * (embedded H2, where a round-trip costs nothing) one by one.
     */
    void run(Connection connection, EpochCheck epoch) throws SQLException {
        if (steps.isEmpty()) {
            return;
        }
        if (!POSTGRESQL.equals(connection.getMetaData().getDatabaseProductName())) {
            runOneByOne(connection);
            return;
        }
        List<Part> part = new ArrayList<>();
        int parameters = 0;
        for (Step<?> step : steps) {
            for (int i = 0; i < step.statements(); i++) {
                int needed = step.parameters();
                if (!part.isEmpty() && parameters + needed > MAX_PARAMETERS_PER_ROUND_TRIP) {
                    runTogether(connection, epoch, part);
                    part = new ArrayList<>();
                    parameters = 0;
                }
                part.add(new Part(step, i));
                parameters += needed;
            }
        }
        runTogether(connection, epoch, part);
    }

    /** Statement {@code index} of {@code step}, in one round-trip's part of a flush. */
    private record Part(Step<?> step, int index) {
    }

    private static void runTogether(Connection connection, EpochCheck epoch, List<Part> part) throws SQLException {
        String read = epoch.pendingRead();
        StringBuilder sql = new StringBuilder(read == null ? "" : read);
        for (Part statement : part) {
            sql.append(sql.isEmpty() ? "" : "; ").append(statement.step().sql());
        }
        try (PreparedStatement script = connection.prepareStatement(sql.toString())) {
            int index = 1;
            for (Part statement : part) {
                index = statement.step().bindStatement(script, index, statement.index());
            }
            script.execute();
            if (read != null) {
                try (ResultSet epochRead = script.getResultSet()) {
                    epoch.read(epochRead);
                }
                script.getMoreResults();
            }
            for (Part statement : part) {
                statement.step().check(statement.index(), script.getUpdateCount());
                script.getMoreResults();
            }
        }
    }

    private void runOneByOne(Connection connection) throws SQLException {
        for (Step<?> step : steps) {
            for (int i = 0; i < step.statements(); i++) {
                try (PreparedStatement one = connection.prepareStatement(step.sql())) {
                    step.bindStatement(one, 1, i);
                    step.check(i, one.executeUpdate());
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
