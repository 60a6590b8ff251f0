-- The ceiling: GET /livez answers a constant without touching the database, so this is
-- the most a route can do through hearth's HTTP stack on this machine.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/livez"
