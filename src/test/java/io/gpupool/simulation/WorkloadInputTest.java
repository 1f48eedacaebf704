package io.gpupool.simulation;

import io.gpupool.domain.lease.WorkloadKind;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The replay's inputs: the generic CSV and the Alibaba 2023 trace, and how bad input is refused. */
class WorkloadInputTest {
    private static final String HEADER = "id,tenant,arrival,gpus,kind,priority_class,models,runs_for_seconds,utilisation\n";

    @Test
    void aGenericCsvBecomesJobsInArrivalOrder() {
        Workload w = WorkloadCsv.parse("week.csv", HEADER
                + "r2,speech,2026-03-02T10:00:00Z,8,training,high,H100-SXM-80G,3600,0.8\n"
                + "r1,vision,2026-03-02T09:00:00Z,1,dev,,,,\n", null);

        assertThat(w.jobs()).extracting(Job::id).containsExactly("r1", "r2");
        Job r2 = w.jobs().get(1);
        assertThat(r2.ask().kind()).isEqualTo(WorkloadKind.TRAINING);
        assertThat(r2.ask().allowedModels()).containsExactly("H100-SXM-80G");
        assertThat(r2.ask().priorityClass()).isEqualTo("high");
        assertThat(r2.runsFor()).isEqualTo(Duration.ofHours(1));
        assertThat(r2.utilisation()).isEqualTo(0.8);
        assertThat(w.jobs().get(0).runsFor()).isNull();
        assertThat(Double.isNaN(w.jobs().get(0).utilisation())).isTrue();
        assertThat(w.from()).isEqualTo(Instant.parse("2026-03-02T09:00:00Z"));
        assertThat(w.to()).isEqualTo(Instant.parse("2026-03-02T12:00:00Z"));
    }

    @Test
    void aLineThatDoesNotParseIsRefusedWithItsFileLineAndColumn() {
        assertThatThrownBy(() -> WorkloadCsv.parse("week.csv", HEADER
                + "r1,vision,2026-03-02T09:00:00Z,1,dev,,,,\n"
                + "r2,vision,yesterday,1,dev,,,,\n", null))
                .isInstanceOf(WorkloadInputException.class)
                .hasMessage("week.csv:3: arrival: not an ISO-8601 instant such as 2026-03-02T09:00:00Z: 'yesterday'");
        assertThatThrownBy(() -> WorkloadCsv.parse("week.csv", HEADER + "r1,vision,2026-03-02T09:00:00Z,1,cooking,,,,\n", null))
                .hasMessageStartingWith("week.csv:2: kind: one of [TRAINING, INFERENCE, EXPERIMENT, DEV], was 'cooking'");
        assertThatThrownBy(() -> WorkloadCsv.parse("week.csv", HEADER + "r1,vision,2026-03-02T09:00:00Z,1,dev,,,,1.5\n", null))
                .hasMessage("week.csv:2: utilisation: must be between 0 and 1, was 1.5");
        assertThatThrownBy(() -> WorkloadCsv.parse("week.csv", "id,tenant,gpus\nr1,vision,1\n", null))
                .hasMessageStartingWith("week.csv:1: arrival: the header has no such column");
    }

    @Test
    void theAlibabaDefaultPodListMapsQosToTenantsAndLifetimesToRunTimes() throws Exception {
        Path dir = Path.of("traces", "alibaba-gpu-v2023");
        AlibabaTrace.Replayable trace = AlibabaTrace.load("openb_pod_list_default.csv",
                Files.readString(dir.resolve("openb_pod_list_default.csv")), "openb_node_list_gpu_node.csv",
                Files.readString(dir.resolve("openb_node_list_gpu_node.csv")));

        assertThat(trace.fleet().devices()).hasSize(6212);
        assertThat(trace.workload().jobs()).hasSize(8152 - 1088); // CPU-only pods are left out
        assertThat(trace.fleet().tenants()).containsOnlyKeys("ls", "be", "burstable", "guaranteed");
        Job first = trace.workload().jobs().stream().filter(j -> j.id().equals("openb-pod-0001")).findFirst().orElseThrow();
        assertThat(first.ask().tenantId()).isEqualTo("ls");
        assertThat(first.ask().milliPerGpu()).isEqualTo(460);
        assertThat(first.arrival()).isEqualTo(AlibabaTrace.EPOCH.plusSeconds(427061));
        assertThat(first.runsFor()).isEqualTo(Duration.ofSeconds(12902960 - 427061));
        Job pending = trace.workload().jobs().stream().filter(j -> j.id().equals("openb-pod-0061")).findFirst().orElseThrow();
        assertThat(pending.ask().priorityClass()).isEqualTo("best-effort");
        assertThat(pending.cancelledAt()).isEqualTo(AlibabaTrace.EPOCH.plusSeconds(10001403));
    }

    @Test
    void anAlibabaPodWithAnUnknownQosIsRefusedWithItsLine() {
        String pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                + "p0,1000,1024,1,1000,,LS,Running,0,100,0\n"
                + "p1,1000,1024,1,1000,,Premium,Running,0,100,0\n";
        assertThatThrownBy(() -> AlibabaTrace.load("pods.csv", pods, "nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,T4\n"))
                .hasMessage("pods.csv:3: qos: one of LS, BE, Burstable, Guaranteed, was 'Premium'");
    }
}
