-- wrk script for scripts/load-rest (LOADGEN=wrk): every connection alternates
--   POST /api/v1/requests            (a small request, the RestLoadBenchmark mix)
--   POST /api/v1/leases/{id}/release (the lease it was just given)
-- so one allocate+release pair is one lease. Run with as many threads as connections (-tN -cN):
-- each thread's Lua state then drives exactly one connection and the alternation stays intact.
-- Latency percentiles are over all HTTP calls (allocate and release together).

local asks = {
  '{"tenant":"rl","kind":"dev","gpus":1,"milliPerGpu":%d}',
  '{"tenant":"assistant","kind":"dev","gpus":1,"milliPerGpu":%d}',
  '{"tenant":"search","kind":"inference","gpus":1,"milliPerGpu":%d}',
  '{"tenant":"ads","kind":"inference","gpus":1,"milliPerGpu":%d}',
  '{"tenant":"research","kind":"training","gpus":1}',
}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("GPUPOOL_TOKEN")
  wrk.headers["Content-Type"] = "application/json"
  lease, leases, queued, failed, n = nil, 0, 0, 0, 0
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
end

function request()
  if lease then
    return wrk.format("POST", "/api/v1/leases/" .. lease .. "/release", nil, "{}")
  end
  local ask = asks[math.random(#asks)]
  return wrk.format("POST", "/api/v1/requests", nil, string.format(ask, 100 * math.random(3)))
end

function response(status, headers, body)
  if lease then
    lease = nil
    if status == 200 then leases = leases + 1 else failed = failed + 1 end
  elseif status == 201 then
    lease = body:match('"lease":{"id":"([^"]+)"')
    if not lease then failed = failed + 1 end
  elseif status == 202 then
    queued = queued + 1 -- a full pool: the request waits; the next call asks again
  else
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local leases, queued, failed = 0, 0, 0
  for _, t in ipairs(threads) do
    leases = leases + t:get("leases")
    queued = queued + t:get("queued")
    failed = failed + t:get("failed")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("leases allocated and released: %d in %.1f s = %.0f leases/s (%.0f HTTP calls/s)\n",
    leases, seconds, leases / seconds, summary.requests / seconds))
  io.write(string.format("queued answers: %d, failed calls: %d, socket errors: %d\n", queued, failed,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("latency p%-5s %8.2f ms\n", p, latency:percentile(p) / 1000))
  end
  io.write(string.format("latency max    %8.2f ms\n", latency.max / 1000))
end
