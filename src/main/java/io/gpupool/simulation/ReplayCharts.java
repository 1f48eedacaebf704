package io.gpupool.simulation;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.data.time.FixedMillisecond;
import org.jfree.data.time.TimeSeries;
import org.jfree.data.time.TimeSeriesCollection;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The replay's time series as PNG charts (JFreeChart): one plot per figure, one line per policy. */
final class ReplayCharts {
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 480;

    private ReplayCharts() {
    }

    static byte[] png(String title, String axis, List<PolicyRun> runs, ToDoubleFunction<FleetSample> figure) {
        System.setProperty("java.awt.headless", "true");
        TimeSeriesCollection data = new TimeSeriesCollection();
        for (PolicyRun run : runs) {
            TimeSeries series = new TimeSeries(run.label());
            for (FleetSample s : run.samples()) {
                double value = figure.applyAsDouble(s);
                if (!Double.isNaN(value)) {
                    series.addOrUpdate(new FixedMillisecond(s.at().toEpochMilli()), value);
                }
            }
            data.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createTimeSeriesChart(title, "time (UTC)", axis, data, true, false, false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ChartUtils.writeChartAsPNG(out, chart, WIDTH, HEIGHT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
