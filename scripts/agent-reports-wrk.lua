-- wrk script: node agents' routine reports, as scripts/ingest-beside-lease-path sends them.
--   POST /api/v1/agent/reports, one report per node and call, 8 GPUs each with one activity sample
-- Each wrk thread (run with as many threads as connections: -tN -cN) reports for its own nodes
-- in turn (thread i of N: nodes i, i+N, i+2N, ...), each report with a sequence number higher
-- than any before it, so every report is new to the service (none is answered as a repeat).
-- Environment: GPUPOOL_TOKEN (admin or agent token), AGENT_NODES (how many nodes, default 1250),
-- AGENT_CLUSTER (default fra-train), AGENT_RATE (reports per second over all threads; 0 or unset:
-- as fast as the service answers). Pacing keeps each thread on a schedule of due times (a late
-- call is not made up by a burst of more than one), so the rate holds whatever the latency.
-- A C load generator on purpose: on a real fleet the agents run on the GPU nodes, so the report
-- traffic should cost this 2-core machine as little as possible besides the service's own work.

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } timespec;
  int clock_gettime(int clk_id, timespec *tp);
]]
local ts = ffi.new("timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local threads = {}
local thread_count = 0

function setup(thread)
  thread:set("index", thread_count)
  thread_count = thread_count + 1
  table.insert(threads, thread)
end

function init(args)
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("GPUPOOL_TOKEN")
  wrk.headers["Content-Type"] = "application/json"
  nodes = tonumber(os.getenv("AGENT_NODES") or "1250")
  cluster = os.getenv("AGENT_CLUSTER") or "fra-train"
  local rate = tonumber(os.getenv("AGENT_RATE") or "0")
  stride = tonumber(os.getenv("AGENT_THREADS") or "1")
  period = rate > 0 and stride * 1000 / rate or 0 -- ms between two calls of this thread
  node = index
  sequence = os.time() * 1000000 + index * 100000 -- above every earlier run's numbers
  -- the threads' first calls spread over one period from the start (not all a period after it: with
  -- 40 threads at 125 reports/s that lost a period's worth, 1.6 %, of every phase's count)
  due = now_ms() - period + period * index / stride
  ok, failed = 0, 0
end

local function report(n)
  local name = string.format("ingest-%05d", n)
  local at = os.date("!%Y-%m-%dT%H:%M:%SZ")
  local gpus = {}
  for i = 0, 7 do
    local activity = ((n * 8 + i) * 7919 + sequence) % 100 / 100
    gpus[#gpus + 1] = string.format(
      '{"index":%d,"uuid":"GPU-%s-%d","productName":"NVIDIA H100 80GB HBM3","memoryMib":81559,"migEnabled":false,'
        .. '"activity":{"metric":"GR_ENGINE_ACTIVE","value":%.2f,"graphicsActive":%.2f,"framebufferUsedMib":%d}}',
      i, name, i, activity, activity, 1024 * i)
  end
  return string.format('{"node":"%s","cluster":"%s","sequence":%d,"at":"%s","intervalSeconds":10,'
    .. '"source":"benchmark","driverVersion":"590.48.01","gpus":[%s]}', name, cluster, sequence, at, table.concat(gpus, ","))
end

function request()
  sequence = sequence + 1
  local body = report(node)
  node = node + stride
  if node >= nodes then node = index end
  return wrk.format("POST", "/api/v1/agent/reports", nil, body)
end

function delay()
  if period == 0 then return 0 end
  due = math.max(due + period, now_ms() - period) -- never more than one call behind its schedule
  return math.max(0, due - now_ms())
end

function response(status, headers, body)
  if status == 200 then ok = ok + 1 else failed = failed + 1 end
end

function done(summary, latency, requests)
  local ok, failed = 0, 0
  for _, t in ipairs(threads) do
    ok = ok + t:get("ok")
    failed = failed + t:get("failed")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("agent reports: %d answered 200 in %.1f s = %.0f reports/s = %.0f GPU samples/s; other answers: %d\n",
    ok, seconds, ok / seconds, 8 * ok / seconds, failed))
  io.write(string.format("report latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
