-- GET /api/v2/feed/ as user 1, the hub (1,000 followed users: the home feed's merge
-- at its widest), one of the first five pages of 20 at random.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }

function request()
   local offset = 20 * math.random(0, 4)
   return wrk.format("GET", "/api/v2/feed/?limit=20&offset=" .. offset, auth)
end
