-- wrk script for make bench-api: single-score POSTs, a random member of
-- 100,000 and a random score each. The API key comes from PODIUM_KEY.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("PODIUM_KEY")

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + seed)
end

function request()
  return wrk.format(nil, nil, nil, string.format('{"member":"m%d","score":%d}', math.random(0, 99999), math.random(1, 100)))
end

-- One line the harness reads, as apiload prints it.
function done(summary, latency, requests)
  local secs = summary.duration / 1e6
  local ok = summary.requests - summary.errors.status - summary.errors.connect - summary.errors.read - summary.errors.write - summary.errors.timeout
  io.write(string.format("requests_per_s=%.0f scores_per_s=%.0f p50_ms=%.2f p99_ms=%.2f ok=%d abandoned=0 errors=%d\n",
    ok / secs, ok / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000, ok,
    summary.requests - ok))
end
