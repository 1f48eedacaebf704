#!/usr/bin/env python3
"""Generates example-week.csv: a synthetic but plausible workload for the example fleet
(../fleet/enterprise-fleet.yaml), in the policy replay's generic CSV format (docs/policy-replay.md).
Deterministic (seeded). Usage: generate.py [DAYS] [REQUESTS_PER_DAY] [SEED] > example-week.csv"""
import random
import sys
from datetime import datetime, timedelta, timezone

days = int(sys.argv[1]) if len(sys.argv) > 1 else 7
per_day = int(sys.argv[2]) if len(sys.argv) > 2 else 300
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 22)
start = datetime(2026, 3, 2, tzinfo=timezone.utc)

# (tenant, kind, priority class, gpu sizes, models, mean run hours, share of the demand)
MIX = [
    ("nlp", "training", "normal", [8, 8, 16, 4], "H100-SXM-80G", 6.0, 0.18),
    ("vision", "training", "normal", [8, 4, 2], "A100-SXM-80G", 4.0, 0.14),
    ("assistant", "training", "high", [8, 16], "H100-SXM-80G", 8.0, 0.06),
    ("research", "experiment", "best-effort", [1, 2, 4], "", 2.0, 0.14),
    ("rl", "dev", "", [1, 1, 2], "", 3.0, 0.12),
    ("search", "inference", "high", [1, 2, 4], "", 12.0, 0.14),
    ("ads", "inference", "", [1, 2], "T4-16G", 10.0, 0.12),
    ("assistant", "dev", "", [1], "", 2.0, 0.10),
]
weights = [m[6] for m in MIX]
print("id,tenant,arrival,gpus,kind,priority_class,models,gang_size,runs_for_seconds,heartbeats_for_seconds,utilisation,cancelled_after_seconds")
n = 0
for day in range(days):
    for _ in range(per_day):
        tenant, kind, klass, sizes, models, hours, _w = rng.choices(MIX, weights)[0]
        # office hours are busier: arrivals cluster between 08:00 and 20:00
        hour = rng.gauss(14, 4) % 24
        arrival = start + timedelta(days=day, hours=hour)
        gpus = rng.choice(sizes)
        gang = 2 if gpus == 16 else 1
        runs = max(60, int(rng.expovariate(1 / (hours * 3600))))
        idle = rng.random() < 0.08          # forgotten notebooks and stuck jobs
        silent = rng.random() < 0.02        # holders that crash and stop heartbeating
        utilisation = round(rng.uniform(0.0, 0.03), 3) if idle else round(rng.uniform(0.35, 0.98), 3)
        beats = int(runs * rng.uniform(0.1, 0.9)) if silent else ""
        cancel = rng.choice([900, 1800, 3600]) if rng.random() < 0.05 else ""
        n += 1
        print(f"req-{n:05d},{tenant},{arrival.strftime('%Y-%m-%dT%H:%M:%SZ')},{gpus},{kind},{klass},{models},{gang},{runs},{beats},{utilisation},{cancel}")
