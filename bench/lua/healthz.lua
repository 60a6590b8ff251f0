-- GET /healthz: one trivial database query. Anonymous.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/healthz"
