-- The hub's mutual followings only (300 of its 1,000); a page of 20 plus the count.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/user/1/followings/?mutual=1"
