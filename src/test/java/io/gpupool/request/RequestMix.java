package io.gpupool.request;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * Request bodies for load over the example fleet, drawn from a seeded random source so a failing
 * run can be repeated: whole-GPU training (1/2/4/8) for the research org and its teams, fractional
 * dev work (100–900 milli) for the teams with dev-shared quotas, and inference for the product teams.
 */
final class RequestMix {
    private static final String[] TRAINING_TENANTS = {"research", "nlp", "vision", "assistant"};
    private static final String[] DEV_TENANTS = {"rl", "assistant", "vision"};
    private static final String[] INFERENCE_TENANTS = {"search", "ads"};
    private static final int[] TRAINING_GPUS = {1, 2, 4, 8};

    private final Random random;

    RequestMix(long seed) {
        this.random = new Random(seed);
    }

    /** 30 % training, 50 % fractional dev, 20 % inference. */
    Map<String, Object> next() {
        int dice = random.nextInt(10);
        if (dice < 3) {
            return training();
        }
        return dice < 8 ? dev() : inference();
    }

    Map<String, Object> training() {
        return body(pick(TRAINING_TENANTS), "training", TRAINING_GPUS[random.nextInt(TRAINING_GPUS.length)]);
    }

    Map<String, Object> dev() {
        Map<String, Object> body = body(pick(DEV_TENANTS), "dev", 1);
        body.put("milliPerGpu", 100 * (1 + random.nextInt(9)));
        return body;
    }

    Map<String, Object> inference() {
        Map<String, Object> body = body(pick(INFERENCE_TENANTS), "inference", 1);
        if (random.nextBoolean()) {
            body.put("milliPerGpu", 250 * (1 + random.nextInt(3)));
        }
        return body;
    }

    boolean chance(int percent) {
        return random.nextInt(100) < percent;
    }

    int below(int bound) {
        return random.nextInt(bound);
    }

    private String pick(String[] tenants) {
        return tenants[random.nextInt(tenants.length)];
    }

    private static Map<String, Object> body(String tenant, String kind, int gpus) {
        Map<String, Object> body = new HashMap<>();
        body.put("tenant", tenant);
        body.put("kind", kind);
        body.put("gpus", gpus);
        return body;
    }
}
