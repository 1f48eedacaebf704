package io.gpupool.accounting;

import io.gpupool.policy.fact.UsageWindow;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class UtilisationSettingsTest {
    @Test
    void theDefaultIdleThresholdIsTheDefaultReclamationRulesOwn() throws IOException {
        String drl;
        try (InputStream in = getClass().getResourceAsStream("/rules/reclamation/reclamation.drl")) {
            drl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Double> thresholds = new ArrayList<>();
        Matcher m = Pattern.compile("idleSecondsBelow\\(([0-9.]+)\\)").matcher(drl);
        while (m.find()) {
            thresholds.add(Double.parseDouble(m.group(1)));
        }

        assertThat(thresholds).as("the idle rules' thresholds").isNotEmpty()
                .containsOnly(Double.parseDouble(UtilisationReports.DEFAULT_IDLE_THRESHOLD));
        assertThat(UsageWindow.DEFAULT.idleBelow()).isEqualTo(Double.parseDouble(UtilisationReports.DEFAULT_IDLE_THRESHOLD));
    }
}
