#!/usr/bin/env python3
"""Regenerates enterprise-fleet.yaml: a realistic two-site example fleet (run: python3 generate.py)."""
import yaml  # noqa: only needed to regenerate; the YAML file itself is committed

def node(id, cluster, rack, cpu, mem, gpus, labels=None):
    n = {"id": id, "cluster": cluster, "rack": rack, "cpuMilli": cpu * 1000, "memoryMib": mem * 1024}
    if labels:
        n["labels"] = labels
    n["gpus"] = gpus
    return n

nodes = []
# Frankfurt training cluster: 12 x 8 H100 SXM with NVLink + InfiniBand; two nodes reserved for critical jobs.
for i in range(12):
    reserved = i >= 10
    g = {"count": 8, "model": "H100-SXM-80G", "memoryMib": 81920, "nvlink": True, "rdma": True,
         "pool": "critical" if reserved else "training"}
    if i == 3:
        g["health"] = {5: "UNHEALTHY"}
    nodes.append(node(f"fra-h100-{i + 1:02d}", "fra-train", f"fra-r{i // 4 + 1:02d}", 192, 2048, g,
                      {"reserved": "true"} if reserved else {"tier": "training"}))
# Frankfurt mixed cluster: A100 80G, four in MIG mode for dev sharing, six whole-card with NVLink.
for i in range(10):
    mig = i < 4
    g = {"count": 8, "model": "A100-SXM-80G", "memoryMib": 81920, "nvlink": not mig, "rdma": not mig,
         "pool": "dev-shared" if mig else "training"}
    if mig:
        g["shareMode"] = "MIG"
        g["migLayout"] = ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"] if i % 2 == 0 else ["7g.80gb"]
    nodes.append(node(f"fra-a100-{i + 1:02d}", "fra-mixed", f"fra-r{i // 5 + 5:02d}", 128, 1024, g,
                      {"mig-capable": "true"}))
# Frankfurt mixed: L40S inference/dev boxes, half time-sliced.
for i in range(14):
    g = {"count": 4, "model": "L40S-PCIE-48G", "memoryMib": 49152, "pool": "inference" if i < 8 else "dev-shared",
         "shareMode": "TIME_SLICE" if i >= 8 else "EXCLUSIVE"}
    if i == 11:
        g["health"] = {2: "DEGRADED"}
    nodes.append(node(f"fra-l40s-{i + 1:02d}", "fra-mixed", f"fra-r{i // 7 + 7:02d}", 64, 512, g))
# Virginia inference cluster: T4 fleet and a few older A100 40G PCIe cards for elastic batch work.
for i in range(20):
    g = {"count": 4, "model": "T4-PCIE-16G", "memoryMib": 16384, "pool": "inference" if i < 14 else "elastic",
         "shareMode": "TIME_SLICE"}
    if i == 17:
        g["health"] = {0: "OFFLINE", 1: "OFFLINE", 2: "OFFLINE", 3: "OFFLINE"}
    nodes.append(node(f"iad-t4-{i + 1:02d}", "iad-infer", f"iad-r{i // 10 + 1:02d}", 32, 256, g))
for i in range(6):
    g = {"count": 2, "model": "A100-PCIE-40G", "memoryMib": 40960, "pool": "elastic"}
    if i == 4:
        g["health"] = {1: "UNHEALTHY"}
    nodes.append(node(f"iad-a100p-{i + 1:02d}", "iad-infer", "iad-r03", 48, 384, g))

doc = {
    "sites": [
        {"id": "fra", "name": "Frankfurt DC1", "region": "eu-central"},
        {"id": "iad", "name": "Ashburn DC2", "region": "us-east"},
    ],
    "clusters": [
        {"id": "fra-train", "site": "fra", "name": "Frankfurt training", "interconnect": "InfiniBand NDR"},
        {"id": "fra-mixed", "site": "fra", "name": "Frankfurt mixed", "interconnect": "RoCE 100G"},
        {"id": "iad-infer", "site": "iad", "name": "Ashburn inference", "interconnect": "Ethernet 25G"},
    ],
    "pools": [
        {"id": "critical", "name": "Critical reserved", "tier": "CRITICAL_RESERVED", "placementStrategy": "default",
         "sharingAllowed": False, "description": "Reserved H100 capacity for production-critical training"},
        {"id": "training", "name": "Training", "tier": "TRAINING", "placementStrategy": "default",
         "sharingAllowed": False, "description": "NVLink nodes for multi-GPU training"},
        {"id": "dev-shared", "name": "Dev shared", "tier": "DEV_SHARED", "placementStrategy": "default",
         "sharingAllowed": True, "description": "MIG and time-sliced cards for notebooks and experiments"},
        {"id": "inference", "name": "Inference", "tier": "ELASTIC", "placementStrategy": "default",
         "sharingAllowed": True, "description": "L40S and T4 serving capacity"},
        {"id": "elastic", "name": "Elastic batch", "tier": "ELASTIC", "placementStrategy": "default",
         "sharingAllowed": True, "description": "Preemptible batch capacity"},
    ],
    "nodes": nodes,
    "tenants": [
        {"id": "research", "name": "Acme Research", "costCenter": "CC-1000"},
        {"id": "nlp", "name": "NLP team", "parent": "research", "costCenter": "CC-1010"},
        {"id": "vision", "name": "Vision team", "parent": "research", "costCenter": "CC-1020"},
        {"id": "rl", "name": "Reinforcement learning", "parent": "research", "costCenter": "CC-1030"},
        {"id": "products", "name": "Acme Products", "costCenter": "CC-2000"},
        {"id": "search", "name": "Search", "parent": "products", "costCenter": "CC-2010"},
        {"id": "ads", "name": "Ads ranking", "parent": "products", "costCenter": "CC-2020"},
        {"id": "assistant", "name": "Assistant", "parent": "products", "costCenter": "CC-2030"},
    ],
    "quotas": [
        {"tenant": "research", "pool": "training", "model": "*", "guaranteedGpus": 96, "borrowingLimit": 32, "lendingLimit": 64},
        {"tenant": "nlp", "pool": "training", "model": "H100-SXM-80G", "guaranteedGpus": 48, "borrowingLimit": 16, "lendingLimit": 32},
        {"tenant": "vision", "pool": "training", "model": "A100-SXM-80G", "guaranteedGpus": 32, "borrowingLimit": 8, "lendingLimit": 24},
        {"tenant": "rl", "pool": "dev-shared", "model": "*", "guaranteedGpus": 16, "borrowingLimit": 16, "lendingLimit": 8},
        {"tenant": "products", "pool": "critical", "model": "H100-SXM-80G", "guaranteedGpus": 16, "borrowingLimit": 0, "lendingLimit": 0},
        {"tenant": "search", "pool": "inference", "model": "*", "guaranteedGpus": 40, "borrowingLimit": 20, "lendingLimit": 20},
        {"tenant": "ads", "pool": "inference", "model": "T4-PCIE-16G", "guaranteedGpus": 32, "borrowingLimit": 8, "lendingLimit": 16},
        {"tenant": "assistant", "pool": "training", "model": "H100-SXM-80G", "guaranteedGpus": 24, "borrowingLimit": 8, "lendingLimit": 8},
        {"tenant": "assistant", "pool": "dev-shared", "model": "*", "guaranteedGpus": 8, "borrowingLimit": 8, "lendingLimit": 4},
        {"tenant": "research", "pool": "elastic", "model": "*", "guaranteedGpus": 8, "borrowingLimit": 16, "lendingLimit": 8},
    ],
}
with open("enterprise-fleet.yaml", "w") as f:
    f.write("# Example fleet: 2 sites, 3 clusters, 62 nodes, 324 GPUs, 8 tenants in 2 orgs.\n")
    f.write("# Generated by generate.py; the format is documented in docs/fleet-document.md.\n")
    yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None, width=120)
