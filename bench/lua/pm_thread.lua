-- GET /api/v2/pm/?user=2 as user 1, the hub: its thread of BENCH_PM_MESSAGES private
-- messages with user 2, as the kit walks it: the newest page of 20 (a read marks the
-- thread read: a GET through the writer), or 20 before a random message (the kit's
-- `before_message` keyset step).
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }
local messages = tonumber(env("BENCH_PM_MESSAGES"))

function request()
   if messages <= 21 or math.random(0, 1) == 0 then
      return wrk.format("GET", "/api/v2/pm/?user=2&limit=20", auth)
   end
   local before = math.random(21, messages)
   return wrk.format("GET", "/api/v2/pm/?user=2&limit=20&before_message=" .. before, auth)
end
