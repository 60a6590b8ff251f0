-- Shared by every scenario script (each starts with dofile(BENCH_LUA_DIR/common.lua)).
-- Gives env(), urlencode(), and the done() that prints the one result line the
-- harness parses. A scenario may define bench_setup(thread, n) to hand thread n (1-based)
-- its own values, and bench_done(threads) to run after it.

function env(name, default)
   local v = os.getenv(name)
   if v == nil or v == "" then
      if default ~= nil then return default end
      error("bench: environment variable " .. name .. " is not set")
   end
   return v
end

function urlencode(s)
   return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", c:byte()) end))
end

-- Random ids are reproducible per run (the harness sets BENCH_SEED).
math.randomseed(tonumber(env("BENCH_SEED", "1")))

local threads = {}
function setup(thread)
   threads[#threads + 1] = thread
   thread:set("thread_id", #threads)
   if bench_setup then bench_setup(thread, #threads) end
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      'BENCH_RESULT {"requests":%.0f,"duration_us":%.0f,"p50_us":%.0f,"p99_us":%.0f,' ..
      '"mean_us":%.1f,"max_us":%.0f,"non2xx":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"timeout":%.0f}\n',
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
      latency.mean, latency.max, e.status, e.connect, e.read, e.write, e.timeout))
   if bench_done then bench_done(threads) end
end
