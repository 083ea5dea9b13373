-- wrk script for make bench-api: GETs of PODIUM_PATH, where "%d" (if any)
-- becomes a random member number below PODIUM_MEMBERS (100,000).
local path = os.getenv("PODIUM_PATH")
local members = tonumber(os.getenv("PODIUM_MEMBERS") or "100000")

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + seed)
end

function request()
  if string.find(path, "%d", 1, true) then
    return wrk.format("GET", string.format(path, math.random(0, members - 1)))
  end
  return wrk.format("GET", path)
end

-- One line the harness reads, as apiload prints it (404s, members without
-- a score, count as errors).
function done(summary, latency, requests)
  local secs = summary.duration / 1e6
  local ok = summary.requests - summary.errors.status - summary.errors.connect - summary.errors.read - summary.errors.write - summary.errors.timeout
  io.write(string.format("requests_per_s=%.0f p50_ms=%.2f p99_ms=%.2f ok=%d errors=%d\n",
    ok / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000, ok, summary.requests - ok))
end
