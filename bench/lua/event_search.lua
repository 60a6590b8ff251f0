-- GET /api/v2/event/search/ as user 1 (2,000 events at 1x, 20,000 at 10x), a third of
-- each: the first page (the kit's events page, no filter), the kit's date filter
-- `this_month`, and `search=topic <n>` (a word of one event in 97's description).
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }
local topics = tonumber(env("BENCH_EVENT_TOPICS"))

function request()
   local k = math.random(0, 2)
   if k == 0 then
      return wrk.format("GET", "/api/v2/event/search/?limit=20&offset=0", auth)
   elseif k == 1 then
      return wrk.format("GET", "/api/v2/event/search/?limit=20&offset=0&date_filter=this_month", auth)
   end
   local topic = math.random(0, topics - 1)
   return wrk.format("GET", "/api/v2/event/search/?limit=20&offset=0&search=topic%20" .. topic .. ".", auth)
end
