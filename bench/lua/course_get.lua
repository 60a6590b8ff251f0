-- GET /api/v2/course/{id}/ as user 1, a random course everyone may see:
-- id % 10 <= 7 (open or private) among 1..BENCH_COURSES.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local max_id = tonumber(env("BENCH_COURSES"))
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }

function request()
   local id
   repeat id = math.random(1, max_id) until id % 10 <= 7
   return wrk.format("GET", "/api/v2/course/" .. id .. "/", auth)
end
