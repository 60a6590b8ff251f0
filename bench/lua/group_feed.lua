-- GET /api/v2/group/{hub group}/feed/ as user 1, a member of the hub group (its
-- BENCH_HUB_GROUP's posts, 2,000 at 1x, 20,000 at 10x): one of the first five pages of 20
-- at random, as the kit's group feed scrolls.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }
local group = env("BENCH_HUB_GROUP")

function request()
   local offset = 20 * math.random(0, 4)
   return wrk.format("GET", "/api/v2/group/" .. group .. "/feed/?limit=20&offset=" .. offset, auth)
end
