package io.gpupool.replay;

import java.io.PrintStream;

/** A one-line progress bar on stderr, redrawn in place; silent when disabled. */
final class ProgressBar {
    private static final int WIDTH = 30;
    private final PrintStream out;
    private final int total;
    private final boolean enabled;
    private int done;

    ProgressBar(PrintStream out, int total, boolean enabled) {
        this.out = out;
        this.total = total;
        this.enabled = enabled;
    }

    synchronized void step(String label) {
        done++;
        if (!enabled) {
            return;
        }
        int filled = total == 0 ? WIDTH : done * WIDTH / total;
        out.print("\r[" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + done + "/" + total + " " + label
                + "          ");
        if (done == total) {
            out.println();
        }
        out.flush();
    }
}
