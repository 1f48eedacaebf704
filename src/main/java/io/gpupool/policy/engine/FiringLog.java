package io.gpupool.policy.engine;

import io.gpupool.policy.decision.Decisions;
import org.kie.api.event.rule.BeforeMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.runtime.KieSession;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tells the collector which rule is firing (so decisions carry the real rule name), counts
 * firings per rule, and halts the session once the wall-clock budget is spent.
 */
final class FiringLog extends DefaultAgendaEventListener {
    private final Decisions decisions;
    private final KieSession session;
    private final long deadlineNanos;
    private final Map<String, Integer> firings = new LinkedHashMap<>();
    private int total;
    private boolean timedOut;

    FiringLog(Decisions decisions, KieSession session, long deadlineNanos) {
        this.decisions = decisions;
        this.session = session;
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void beforeMatchFired(BeforeMatchFiredEvent event) {
        String rule = event.getMatch().getRule().getName();
        decisions.onRuleFiring(rule);
        firings.merge(rule, 1, Integer::sum);
        total++;
        if ((total & 255) == 0 && System.nanoTime() > deadlineNanos) {
            timedOut = true;
            session.halt();
        }
    }

    Map<String, Integer> firings() {
        return firings;
    }

    int total() {
        return total;
    }

    boolean timedOut() {
        return timedOut;
    }
}
