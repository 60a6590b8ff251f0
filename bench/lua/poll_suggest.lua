-- GET /api/v2/suggestion/poll/ as user 1, the hub, who answered every other poll: the
-- kit's PollSuggestionWidget (3 polls) or its dialog's second page of 20, half and half.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local auth = { ["Authorization"] = "Bearer " .. env("BENCH_JWT") }

function request()
   if math.random(0, 1) == 0 then
      return wrk.format("GET", "/api/v2/suggestion/poll/?limit=3", auth)
   end
   return wrk.format("GET", "/api/v2/suggestion/poll/?limit=20&offset=20", auth)
end
