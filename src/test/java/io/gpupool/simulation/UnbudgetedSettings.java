package io.gpupool.simulation;

import io.gpupool.request.scheduling.SimulatedScheduler;

import java.time.Duration;

/**
 * The simulated scheduler's default settings with a pass budget no loaded machine spends. The budget
 * counts real time (as live), so with the default 250 ms a pass on a busy machine stops early and
 * resumes later, and a run is no longer a function of its input: two runs that must agree byte for
 * byte may then differ for no fault of the code under test (seen at load 20: the same workload gave
 * a different number of admissions asked in two runs of the same engine). Tests that compare two
 * runs use these, as RecalledDryRunTest and PreparedDryRunInputTest do for the live service.
 */
final class UnbudgetedSettings {
    static final SimulatedScheduler.Settings DEFAULTS;

    static {
        SimulatedScheduler.Settings d = SimulatedScheduler.Settings.defaults();
        DEFAULTS = new SimulatedScheduler.Settings(d.grace(), d.sweepEvery(), d.passEvery(), d.candidateNodes(),
                d.widenEvery(), Duration.ofHours(1));
    }

    private UnbudgetedSettings() {
    }
}
