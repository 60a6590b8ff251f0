-- POST /api/v2/course/ as user 1. Names must be unique: a per-run prefix from the
-- harness (BENCH_RUN_PREFIX), the wrk thread and a counter.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local prefix = env("BENCH_RUN_PREFIX")
local hdrs = {
   ["Authorization"] = "Bearer " .. env("BENCH_JWT"),
   ["Content-Type"] = "application/json",
}
local n = 0

function request()
   n = n + 1
   local body = string.format(
      '{"name": "bench %s t%d %d", "type": "self-paced", "privacy": "open", ' ..
      '"description": "Created by the benchmark.", "categories": [1, 2]}',
      prefix, thread_id or 0, n)
   return wrk.format("POST", "/api/v2/course/", hdrs, body)
end
