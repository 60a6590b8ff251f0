-- Anonymous reaction search: 3 of the 6 default reactions match "a" and are active.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/reaction/search/?search=a&active=true"
