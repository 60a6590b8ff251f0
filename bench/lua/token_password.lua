-- POST /oauth/token/ grant_type=password for random users user000001..BENCH_USERS
-- (password benchpass, 600,000 PBKDF2 iterations). The answers' refresh tokens are
-- appended to BENCH_TOKENS_OUT to seed token_refresh.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local users = tonumber(env("BENCH_USERS"))
local client = urlencode(env("BENCH_CLIENT_ID"))
local hdrs = { ["Content-Type"] = "application/x-www-form-urlencoded" }
got = {}

function request()
   local body = string.format("grant_type=password&client_id=%s&username=user%06d&password=benchpass",
                              client, math.random(1, users))
   return wrk.format("POST", "/oauth/token/", hdrs, body)
end

function response(status, headers, body)
   if status == 200 then
      local rt = body:match('"refresh_token"%s*:%s*"([^"]+)"')
      if rt then got[#got + 1] = rt end
   end
end

function bench_done(threads)
   local out = assert(io.open(env("BENCH_TOKENS_OUT"), "a"))
   for _, t in ipairs(threads) do
      for _, rt in ipairs(t:get("got")) do out:write(rt, "\n") end
   end
   out:close()
end
