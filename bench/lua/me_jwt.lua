-- GET /api/v2/user/me/ as user 1, authenticated by a JWT (signature check, no token row).
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/user/me/"
wrk.headers["Authorization"] = "Bearer " .. env("BENCH_JWT")
