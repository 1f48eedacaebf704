package io.gpupool.policy;

import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.TenantUsageFact;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class QuotaRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedQuotaScenariosPass() {
        return DefaultPolicy.scenarios("quota");
    }

    @ParameterizedTest(name = "guarantee {0}, tree uses {1}, borrowed {2}/{3}, request {4} → headroom {5}, excess {6}, room {7}")
    @CsvSource({
            "4000, 1000, 0,    2000, 2000, 3000,     0, 2000",
            "4000, 3000, 0,    2000, 2000, 1000,  1000, 2000",
            "4000, 5000, 1000, 2000, 2000, -1000, 2000, 1000",
            "0,    0,    0,    0,    1000, 0,     1000,    0",
    })
    void quotaArithmeticTheRulesRelyOn(long guaranteed, long subtreeUsed, long borrowed, long borrowingLimit,
                                       int requestMilli, long headroom, long excess, long borrowRoom) {
        TenantUsageFact usage = new TenantUsageFact("t", "t", "p", "*", guaranteed, borrowingLimit, guaranteed,
                subtreeUsed, borrowed, subtreeUsed);
        RequestFact request = RequestFact.whole("r", "t", "TRAINING", 1);
        RequestFact sized = new RequestFact("r", "t", "TRAINING", 1, requestMilli, null, null, 0, 1, null, false, 0);

        assertThat(usage.headroomMilli()).isEqualTo(headroom);
        assertThat(usage.excessMilli(sized)).isEqualTo(excess);
        assertThat(usage.borrowRoomMilli()).isEqualTo(borrowRoom);
        assertThat(request.totalMilli()).isEqualTo(1000);
    }
}
