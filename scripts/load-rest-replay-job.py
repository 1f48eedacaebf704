#!/usr/bin/env python3
"""Starts a policy replay job on the service (start), or prints its state (state); for
scripts/load-rest-replay-ab. The service and token come from GPUPOOL_URL and GPUPOOL_TOKEN; the job
replays the README's example day (120 requests) on the service's fleet under the active policy and v1."""
import json, os, sys, urllib.request

url, token = os.environ["GPUPOOL_URL"], os.environ["GPUPOOL_TOKEN"]
auth = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
if sys.argv[1] == "start":
    body = {"workload": open("policies-examples/workload/example-day.csv").read(), "policies": ["active", "1"]}
    job = json.load(urllib.request.urlopen(urllib.request.Request(url + "/api/v1/policies/replay", json.dumps(body).encode(), auth)))
    open("target/load-rest-replay-job", "w").write(job["id"])
    print("replay job", job["id"], job["state"])
else:
    job_id = open("target/load-rest-replay-job").read().strip()
    job = json.load(urllib.request.urlopen(urllib.request.Request(url + "/api/v1/policies/replay/" + job_id, headers=auth)))
    print("replay job near the end of the measured run:", job["state"], "progress", round(job["progress"], 3), job.get("running"))
