-- POST /api/v2/post/{id}/restore/ as user 1 on a random one of its posts 1..BENCH_HUB_POSTS,
-- all deleted in the dataset: the first restore of each is a write, later ones are
-- no-op 204s.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local max_id = tonumber(env("BENCH_HUB_POSTS"))
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }

function request()
   return wrk.format("POST", "/api/v2/post/" .. math.random(1, max_id) .. "/restore/", auth)
end
