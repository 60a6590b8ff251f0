-- The hub's followings: 1,000 users, mutual ones first; a page of 20 plus the count.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/user/1/followings/"
