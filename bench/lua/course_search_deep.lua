-- Course search as user 1 at a deep offset: 10000 (the cap of every list's offset),
-- or the deepest full page the data has (the harness computes BENCH_DEEP_OFFSET).
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/course/search/?offset=" .. env("BENCH_DEEP_OFFSET")
wrk.headers["Authorization"] = "Bearer " .. env("BENCH_JWT")
