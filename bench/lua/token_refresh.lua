-- POST /oauth/token/ grant_type=refresh_token. Every refresh token is presented exactly
-- once: the queue starts with the tokens in BENCH_POOL, each request takes the front
-- one, each answer's new refresh token joins the back. What is left when wrk stops is
-- written to BENCH_POOL_OUT for the next run (tokens in flight then are lost, so the
-- harness seeds connections x (runs + 1) + a margin).
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local client = urlencode(env("BENCH_CLIENT_ID"))
local hdrs = { ["Content-Type"] = "application/x-www-form-urlencoded" }
pool, head, tail = {}, 1, 0

function init(args)
   for line in io.lines(env("BENCH_POOL")) do
      if line ~= "" then tail = tail + 1; pool[tail] = line end
   end
end

function request()
   local rt = "pool-exhausted" -- answered 400: shows up as non-2xx
   if head <= tail then
      rt = pool[head]; pool[head] = nil; head = head + 1
   end
   return wrk.format("POST", "/oauth/token/", hdrs,
                     "grant_type=refresh_token&client_id=" .. client .. "&refresh_token=" .. urlencode(rt))
end

function response(status, headers, body)
   if status == 200 then
      local rt = body:match('"refresh_token"%s*:%s*"([^"]+)"')
      if rt then tail = tail + 1; pool[tail] = rt end
   end
end

function bench_done(threads)
   local out = assert(io.open(env("BENCH_POOL_OUT"), "w"))
   for _, t in ipairs(threads) do
      local p, h, tl = t:get("pool"), t:get("head"), t:get("tail")
      for i = h, tl do
         if p[i] then out:write(p[i], "\n") end
      end
   end
   out:close()
end
