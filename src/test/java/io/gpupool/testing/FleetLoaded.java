package io.gpupool.testing;

import static org.assertj.core.api.Assertions.assertThat;

/** Loads the example fleet once per test context (the schema is cleaned when a context starts). */
public final class FleetLoaded {
    private FleetLoaded() {
    }

    public static void ensure(Api api) {
        if (api.get("/api/v1/devices?size=1", Api.ADMIN).body().path("total").asInt() == 0) {
            assertThat(api.postText("/api/v1/fleet", ExampleFleet.yaml(), "application/yaml", Api.ADMIN).status())
                    .isEqualTo(200);
        }
    }
}
