package io.gpupool.snapshot;

import io.gpupool.testing.Leases;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class IncrementalSnapshotTest {
    /** The same content assembled from nothing: what the incremental build must equal. */
    private static PoolSnapshot fresh(PoolSnapshot s) {
        return PoolSnapshot.builder().version(s.version()).takenAt(s.takenAt()).sites(s.sites().values())
                .clusters(s.clusters().values()).nodes(s.nodes().values()).devices(s.devices().values())
                .tenants(s.tenants().values()).pools(s.pools().values()).quotas(s.quotas().values())
                .leases(s.leases().values()).build();
    }

    @Test
    void usageDeviceAndNoticeIndexesAfterEveryCommitEqualAFreshBuild() {
        LeaseChurn churn = new LeaseChurn(11);
        PoolSnapshot s = churn.fleet();
        int stepsWithNotices = 0;
        for (int step = 0; step < 400; step++) {
            s = churn.step(s);
            PoolSnapshot expected = fresh(s);
            for (Device d : s.devices().values()) {
                assertThat(s.usedMilli(d.id())).as("used milli of %s at step %d", d.id(), step)
                        .isEqualTo(expected.usedMilli(d.id()));
            }
            for (String node : s.nodes().keySet()) {
                assertThat(s.devicesOn(node)).isEqualTo(expected.devicesOn(node));
            }
            assertThat(s.promisedMilli()).as("milli under notice at step %d", step).isEqualTo(expected.promisedMilli());
            assertThat(s.underNotice()).as("leases under notice at step %d", step).isEqualTo(expected.underNotice())
                    .isEqualTo(s.leases().values().stream().filter(l -> l.state() == LeaseState.PREEMPTING)
                            .collect(java.util.stream.Collectors.toMap(Lease::id, l -> l)));
            stepsWithNotices += s.underNotice().isEmpty() ? 0 : 1;
        }
        assertThat(stepsWithNotices).as("the churn puts leases under notice").isGreaterThan(100);
    }

    @Test
    void deltaNamesTheOldAndNewValueOfEveryTouchedLease() {
        PoolSnapshot s = new LeaseChurn(3).fleet();
        Lease a = s.leases().values().iterator().next();
        Lease noticed = LeaseTransitions.notice(a, s.takenAt().plusSeconds(30), Leases.NOTICE);

        PoolSnapshot next = s.toBuilder().lease(noticed).build();

        assertThat(next.delta().parentId()).isEqualTo(s.identity());
        assertThat(next.delta().leasesRemoved()).containsExactly(a);
        assertThat(next.delta().leasesAdded()).containsExactly(noticed);
        assertThat(next.delta().inventoryChanged()).isFalse();
        assertThat(next.delta().leaseChangesSince(s)).hasValueSatisfying(d -> assertThat(d).hasSize(1));
    }

    @Test
    void deltaPairsEachReplacedLeaseWithItsReplacementAndTellsAHeartbeatAloneApart() {
        PoolSnapshot s = new LeaseChurn(3).fleet();
        java.util.Iterator<Lease> leases = s.leases().values().iterator();
        Lease beating = leases.next();
        Lease noticedBefore = leases.next();
        Lease ending = leases.next();
        Lease beat = LeaseTransitions.heartbeat(beating, s.takenAt().plusSeconds(30));
        Lease noticed = LeaseTransitions.notice(noticedBefore, s.takenAt().plusSeconds(30), Leases.NOTICE);

        Lease ended = LeaseTransitions.end(ending, LeaseState.RELEASED, s.takenAt().plusSeconds(30));

        PoolSnapshot next = s.toBuilder().lease(beat).lease(noticed).lease(ended).build();

        SnapshotDelta delta = next.delta();
        List<Lease> removed = delta.leasesRemoved();
        List<Lease> added = delta.leasesAdded();
        assertThat(removed).containsExactlyInAnyOrder(beating, noticedBefore, ending);
        assertThat(added).containsExactlyInAnyOrder(beat, noticed);
        for (int i = 0; i < removed.size(); i++) {
            Lease was = removed.get(i);
            int at = delta.replacementOf(i);
            if (was == ending) {
                assertThat(at).as("the ended lease has no replacement").isEqualTo(-1);
            } else {
                assertThat(added.get(at)).as("the replacement of %s", was.id()).isEqualTo(was == beating ? beat : noticed);
                assertThat(delta.replacedAt(at)).as("paired both ways").isEqualTo(i);
            }
            assertThat(delta.heardRemoved(i)).as("%s changed by a heartbeat alone", was.id()).isEqualTo(was == beating);
        }
        for (int j = 0; j < added.size(); j++) {
            assertThat(delta.heardAdded(j)).as("a notice is more than a heartbeat").isEqualTo(added.get(j) == beat);
        }
        List<Lease> takenOut = new java.util.ArrayList<>();
        List<Lease> putIn = new java.util.ArrayList<>();
        delta.forEachBeyondHeartbeats(takenOut::add, putIn::add);
        assertThat(takenOut).as("all but the heartbeat").containsExactlyInAnyOrder(noticedBefore, ending);
        assertThat(putIn).containsExactly(noticed);
        SnapshotDelta endedOnly = s.toBuilder().lease(ended).build().delta();
        assertThat(endedOnly.replacementOf(0)).isEqualTo(-1);
        assertThat(endedOnly.heardRemoved(0)).isFalse();
    }

    @Test
    void aFollowerThatMissedSnapshotsCatchesUpFromAnyOfTheLastMaxChainHoweverLongTheChainGrew() {
        PoolSnapshot fleet = new LeaseChurn(5).fleet();
        Lease a = fleet.leases().values().iterator().next();
        List<PoolSnapshot> chain = new java.util.ArrayList<>(List.of(fleet));
        // lease changes only: each commit moves one deadline; long enough for the chain to be cut twice
        for (int step = 0; step < 5 * SnapshotDelta.MAX_CHAIN; step++) {
            Lease noticed = LeaseTransitions.notice(a, fleet.takenAt().plusSeconds(30 + step), Leases.NOTICE);
            chain.add(chain.get(chain.size() - 1).toBuilder().lease(noticed).build());
        }
        for (int last = 2; last < chain.size(); last++) {
            PoolSnapshot latest = chain.get(last);
            for (int missed : new int[]{1, 2, SnapshotDelta.MAX_CHAIN - 1}) {
                if (last - missed - 1 >= 1) {
                    int seen = last - missed - 1;
                    assertThat(latest.delta().leaseChangesSince(chain.get(seen)))
                            .as("snapshot %d seen, %d missed, at %d", seen, missed, last)
                            .hasValueSatisfying(d -> assertThat(d).hasSize(missed + 1));
                }
            }
        }
    }

    @Test
    void aBuildersLaterChangesNeverShowThroughASnapshotItAlreadyBuilt() {
        PoolSnapshot s = new LeaseChurn(6).fleet();
        List<Lease> held = List.copyOf(s.leases().values());
        Lease first = held.get(0);
        Lease second = held.get(1);
        PoolSnapshotBuilder builder = s.toBuilder();
        Lease noticed = LeaseTransitions.notice(first, s.takenAt().plusSeconds(30), Leases.NOTICE);
        PoolSnapshot built = builder.lease(noticed).build();
        List<String> builtOrder = List.copyOf(built.leases().keySet());
        int secondsCard = built.usedMilli(second.shares().get(0).deviceId());

        builder.lease(LeaseTransitions.end(second, LeaseState.RELEASED))
                .lease(LeaseTransitions.end(noticed, LeaseState.RELEASED));
        PoolSnapshot later = builder.build();

        assertThat(built.leases()).containsEntry(first.id(), noticed).containsEntry(second.id(), second);
        assertThat(built.leases().keySet()).containsExactlyElementsOf(builtOrder);
        assertThat(built.underNotice()).containsOnlyKeys(first.id());
        assertThat(built.usedMilli(second.shares().get(0).deviceId())).isEqualTo(secondsCard);
        assertThat(later.leases()).doesNotContainKeys(first.id(), second.id()).hasSize(held.size() - 2);
        assertThat(later.underNotice()).isEmpty();
        assertThat(s.leases()).containsEntry(first.id(), first).hasSize(held.size());
    }

    @Test
    void aLeaseAddedAndEndedInOneCommitLeavesNoTrace() {
        PoolSnapshot s = new LeaseChurn(4).fleet();
        Lease held = s.leases().values().iterator().next();
        Lease twin = Leases.lease("twin").request("r").tenant(held.tenantId()).pool(held.poolId()).kind(held.kind())
                .shares(held.shares()).createdAt(held.createdAt()).build();

        PoolSnapshot next = s.toBuilder().lease(twin).lease(LeaseTransitions.end(twin, LeaseState.RELEASED)).build();

        assertThat(next.delta().leasesAdded()).isEmpty();
        assertThat(next.delta().leasesRemoved()).isEmpty();
        assertThat(next.usedMilli(held.shares().get(0).deviceId())).isEqualTo(s.usedMilli(held.shares().get(0).deviceId()));
    }

    @Test
    void deltasChainAcrossSkippedVersionsButNotAcrossAnInventoryChange() {
        LeaseChurn churn = new LeaseChurn(5);
        PoolSnapshot start = churn.fleet();
        PoolSnapshot a = start.toBuilder().lease(LeaseTransitions.end(start.leases().values().iterator().next(),
                LeaseState.RELEASED)).build();
        PoolSnapshot b = a.toBuilder().build();
        Device d = b.devices().values().iterator().next();

        PoolSnapshot c = b.toBuilder().device(d).build();

        assertThat(b.delta().leaseChangesSince(start)).hasValueSatisfying(path -> assertThat(path).hasSize(2));
        assertThat(c.delta().leaseChangesSince(start)).isEmpty();
        assertThat(b.delta().leaseChangesSince(PoolSnapshot.empty())).isEmpty();
    }

    @Test
    void aSweepsWorthOfChangesInOneBuildEqualsAFreshBuildAndNoticesAloneLeaveTheUsedIndexAsItWas() {
        LeaseChurn churn = new LeaseChurn(23);
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 40; step++) {
            s = churn.step(s);
        }
        List<Lease> held = s.leases().values().stream().filter(l -> l.state() == LeaseState.ACTIVE).toList();
        assertThat(held).as("the churn leaves active leases to act on").hasSizeGreaterThan(5);
        java.time.Instant deadline = s.takenAt().plusSeconds(300);

        // a sweep's part: every active lease given notice at once (its shares unchanged)
        PoolSnapshotBuilder noticed = s.toBuilder();
        held.forEach(l -> noticed.lease(LeaseTransitions.notice(l, deadline, Leases.NOTICE)));
        PoolSnapshot underNotice = noticed.build();
        assertThat((Object) underNotice.usedMilliByDevice()).as("notices move no GPU: the used index is the parent's")
                .isSameAs(s.usedMilliByDevice());
        assertSameIndexes(underNotice, fresh(underNotice));

        // the grace periods' part: a third ended, a third heartbeating, a third left under notice
        PoolSnapshotBuilder ended = underNotice.toBuilder();
        for (int i = 0; i < held.size(); i++) {
            Lease l = underNotice.leases().get(held.get(i).id());
            if (i % 3 == 0) {
                ended.lease(LeaseTransitions.end(l, LeaseState.RELEASED));
            } else if (i % 3 == 1) {
                ended.lease(LeaseTransitions.heartbeat(l, deadline));
            }
        }
        PoolSnapshot after = ended.build();
        assertSameIndexes(after, fresh(after));
        assertThat((java.util.Map<String, Integer>) after.usedMilliByDevice()).isNotEqualTo(s.usedMilliByDevice());
    }

    private static void assertSameIndexes(PoolSnapshot s, PoolSnapshot expected) {
        assertThat((java.util.Map<String, Integer>) s.usedMilliByDevice()).as("used milli per device").isEqualTo(expected.usedMilliByDevice());
        assertThat(s.promisedMilli()).as("milli under notice per device").isEqualTo(expected.promisedMilli());
        assertThat(s.underNotice()).as("leases under notice").isEqualTo(expected.underNotice());
    }

    @Test
    void unchangedMapsAreSharedWithTheParentAndChangedOnesAreNot() {
        PoolSnapshot s = new LeaseChurn(6).fleet();
        Lease l = s.leases().values().iterator().next();

        PoolSnapshot leaseOnly = s.toBuilder().lease(LeaseTransitions.end(l, LeaseState.RELEASED)).build();
        PoolSnapshot quotaToo = leaseOnly.toBuilder().removeQuota(s.quotas().keySet().iterator().next()).build();

        assertThat(leaseOnly.devices()).isSameAs(s.devices());
        assertThat(leaseOnly.quotas()).isSameAs(s.quotas());
        assertThat(quotaToo.quotas()).isNotSameAs(leaseOnly.quotas()).hasSize(s.quotas().size() - 1);
        assertThat(s.quotas()).hasSize(leaseOnly.quotas().size()); // the parent never sees the child's change
        assertThat(List.copyOf(s.leases().keySet())).contains(l.id());
    }
}
