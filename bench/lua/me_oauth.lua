-- GET /api/v2/user/me/ as user 1, authenticated by an opaque OAuth access token
-- (from the password grant): a token lookup in the database.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/user/me/"
wrk.headers["Authorization"] = "Bearer " .. env("BENCH_OAUTH")
