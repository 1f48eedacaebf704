package io.gpupool.allocator;

/**
 * Bit flags naming the kinds of work a node already hosts ("shared", "1-GPU", "2-GPU", …), which
 * the clustering strategy keeps together. Bit 0 is a shared GPU (fraction or MIG partition); bit k
 * is a k-GPU member (capped at 30).
 */
public final class WorkloadClass {
    public static final int SHARED = 1;

    private WorkloadClass() {
    }

    public static int of(int gpus, int milliPerGpu, String migProfile) {
        if (gpus == 0) {
            return 0;
        }
        if (migProfile != null || (gpus == 1 && milliPerGpu < PlacementRequest.WHOLE)) {
            return SHARED;
        }
        return 1 << Math.min(gpus, 30);
    }

    public static int of(PlacementRequest request) {
        return of(request.gpusPerMember(), request.milliPerGpu(), request.migProfile());
    }
}
