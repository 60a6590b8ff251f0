-- GET /api/v2/feed/explore/ anonymously, one of the first five pages of 20 at random.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")

function request()
   local offset = 20 * math.random(0, 4)
   return wrk.format("GET", "/api/v2/feed/explore/?limit=20&offset=" .. offset)
end
