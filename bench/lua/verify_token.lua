-- POST /api/v2/jwt/verify_token/ with user 1's JWT. Anonymous.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "POST"
wrk.path = "/api/v2/jwt/verify_token/"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"token": "' .. env("BENCH_JWT") .. '"}'
