-- Course search as user 1: the first page (20, newest first) plus the count of every
-- course it may see.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/course/search/"
wrk.headers["Authorization"] = "Bearer " .. env("BENCH_JWT")
