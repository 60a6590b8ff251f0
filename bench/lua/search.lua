-- GET /api/v2/search/ as user 1, half the time for items with a word every item holds
-- ("bench": the ranked window at its fullest), half the time for users by a prefix of
-- their username (user0 + three random digits: a few hundred matches at 10x).
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }

function request()
   if math.random(0, 1) == 0 then
      return wrk.format("GET", "/api/v2/search/?search=bench&limit=20", auth)
   end
   local prefix = string.format("user0%03d", math.random(0, 199))
   return wrk.format("GET", "/api/v2/search/?type=user&search=" .. prefix .. "&limit=20", auth)
end
