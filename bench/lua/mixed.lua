-- mixed: a realistic blend at C connections, each connection a different user.
--
-- The harness runs this script with wrk -tC -cC: one thread per connection, so every
-- connection has its own Lua state, its own user and JWT (BENCH_CREDS: one "user_id jwt"
-- line per connection) and its own share of the refresh-token pool (BENCH_POOL). No
-- per-address cap or login limit is in play: nothing here checks a password.
--
-- Every request is drawn from KINDS by weight (the table below). Each response is timed
-- in Lua (CLOCK_MONOTONIC through LuaJIT's FFI, from the moment wrk asks for the request
-- to the moment its response is parsed; with one connection per thread and no
-- pipelining that is exactly the request's latency), so that the harness can report the
-- writes' latencies apart from the reads'.
--
-- Each thread writes BENCH_MIXED_LOG/thread-N.log, one line per event:
--   <kind> <status> <latency µs>   a response
--   token <refresh token>          a refresh token this connection holds (start, or new)
--   used <refresh token>           a refresh token it presented
--   skipped refresh                a refresh drawn with no token left (sent as `me`)
-- and setup writes BENCH_MIXED_LOG/kinds ("<kind> <weight> read|write" per line). The
-- harness computes the report and the refresh tokens left (held and not used) from them.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clk_id, bench_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local now_ts = ffi.new("bench_timespec")
local function now_us()
   ffi.C.clock_gettime(CLOCK_MONOTONIC, now_ts)
   return tonumber(now_ts.tv_sec) * 1e6 + tonumber(now_ts.tv_nsec) / 1e3
end

-- The blend, in percent of requests (reads 88, writes 12). A kind's name is what the
-- report shows; `write` marks the ones that go through the single writer.
KINDS = {
   { name = "user_get", weight = 15 },           -- GET /api/v2/user/{random}/
   { name = "me", weight = 5 },                  -- GET /api/v2/user/me/
   { name = "followings", weight = 15 },         -- GET /api/v2/user/{random}/followings/
   { name = "course_get", weight = 18 },         -- GET /api/v2/course/{random visible}/
   { name = "course_search", weight = 2 },       -- GET /api/v2/course/search/ (first page + count)
   { name = "my_courses", weight = 3 },          -- GET /api/v2/course/ (the caller's courses)
   { name = "contribution_get", weight = 18 },   -- GET /api/v2/{discussion,post,status}/{random live}/
   { name = "contribution_list", weight = 6 },   -- GET /api/v2/{discussion,post,status}/ (newest page)
   { name = "comments", weight = 6 },            -- GET /api/v2/comment/?discussion={random}
   { name = "vote", weight = 6, write = true },  -- POST /api/v2/{type}/{random live}/vote/ (toggle)
   { name = "follow", weight = 3, write = true }, -- POST /api/v2/user/{random}/follow/ (toggle)
   { name = "post", weight = 2, write = true },  -- POST /api/v2/post/ {"text", "categories"}
   { name = "refresh", weight = 1, write = true }, -- POST /oauth/token/ grant_type=refresh_token
}

local users = tonumber(env("BENCH_USERS"))
local max_course = tonumber(env("BENCH_COURSES"))
local discussions = tonumber(env("BENCH_DISCUSSIONS"))
local posts = tonumber(env("BENCH_POSTS"))
local first_live_post = tonumber(env("BENCH_HUB_POSTS")) + 1 -- posts 1..hub's are deleted
local statuses = tonumber(env("BENCH_STATUSES"))
local categories = tonumber(env("BENCH_CATEGORIES"))
local client = urlencode(env("BENCH_CLIENT_ID"))
local prefix = env("BENCH_RUN_PREFIX")

-- The main state (where setup runs) hands each thread its credentials and tokens.
local creds, pool = {}, {}
for line in io.lines(env("BENCH_CREDS")) do
   local uid, jwt = line:match("^(%d+)%s+(%S+)$")
   if uid then creds[#creds + 1] = { uid = tonumber(uid), jwt = jwt } end
end
for line in io.lines(env("BENCH_POOL")) do
   if line ~= "" then pool[#pool + 1] = line end
end

function bench_setup(thread, n)
   if n == 1 then
      local f = assert(io.open(env("BENCH_MIXED_LOG") .. "/kinds", "w"))
      for _, k in ipairs(KINDS) do
         f:write(k.name, " ", k.weight, " ", k.write and "write" or "read", "\n")
      end
      f:close()
   end
   local c = creds[(n - 1) % #creds + 1]
   thread:set("my_uid", c.uid)
   thread:set("my_jwt", c.jwt)
   -- refresh tokens round-robin: thread n gets pool[n], pool[n + C], ...
   local mine, nthreads = {}, tonumber(env("BENCH_THREADS"))
   for i = n, #pool, nthreads do mine[#mine + 1] = pool[i] end
   thread:set("my_pool", mine)
end

-- Per-thread state (set by setup before init runs).
local cum, total = {}, 0
local auth, json_auth, form = nil, nil, { ["Content-Type"] = "application/x-www-form-urlencoded" }
local pending_kind, pending_t0 = nil, 0
local n_posts = 0
rt_head, rt_tail = 1, 0 -- my_pool[rt_head..rt_tail] are the unused refresh tokens

function init(args)
   math.randomseed(tonumber(env("BENCH_SEED", "1")) + 7919 * (thread_id or 0))
   auth = { ["Authorization"] = "Bearer " .. my_jwt }
   json_auth = { ["Authorization"] = "Bearer " .. my_jwt, ["Content-Type"] = "application/json" }
   for i, k in ipairs(KINDS) do
      total = total + k.weight
      cum[i] = total
   end
   my_pool = my_pool or {}
   rt_tail = #my_pool -- no holes yet: setup built it as a sequence
   record = assert(io.open(env("BENCH_MIXED_LOG") .. "/thread-" .. (thread_id or 0) .. ".log", "w"))
   record:setvbuf("full", 65536)
   for i = rt_head, rt_tail do record:write("token ", my_pool[i], "\n") end
end

local function pick()
   local r = math.random() * total
   for i, c in ipairs(cum) do
      if r < c then return KINDS[i].name end
   end
   return KINDS[#KINDS].name
end

local function live_item()
   local r = math.random(1, discussions + (posts - first_live_post + 1) + statuses)
   if r <= discussions then return "discussion", r end
   r = r - discussions
   if r <= posts - first_live_post + 1 then return "post", first_live_post + r - 1 end
   return "status", r - (posts - first_live_post + 1)
end

local function other_user()
   local v
   repeat v = math.random(1, users) until v ~= my_uid
   return v
end

local function build(kind)
   if kind == "user_get" then
      return wrk.format("GET", "/api/v2/user/" .. math.random(1, users) .. "/", auth)
   elseif kind == "me" then
      return wrk.format("GET", "/api/v2/user/me/", auth)
   elseif kind == "followings" then
      return wrk.format("GET", "/api/v2/user/" .. math.random(1, users) .. "/followings/", auth)
   elseif kind == "course_get" then
      local id
      repeat id = math.random(1, max_course) until id % 10 <= 7 -- open or private
      return wrk.format("GET", "/api/v2/course/" .. id .. "/", auth)
   elseif kind == "course_search" then
      return wrk.format("GET", "/api/v2/course/search/", auth)
   elseif kind == "my_courses" then
      return wrk.format("GET", "/api/v2/course/", auth)
   elseif kind == "contribution_get" then
      local t, id = live_item()
      return wrk.format("GET", "/api/v2/" .. t .. "/" .. id .. "/", auth)
   elseif kind == "contribution_list" then
      local t = live_item()
      return wrk.format("GET", "/api/v2/" .. t .. "/", auth)
   elseif kind == "comments" then
      return wrk.format("GET", "/api/v2/comment/?discussion=" .. math.random(1, discussions), auth)
   elseif kind == "vote" then
      local t, id = live_item()
      return wrk.format("POST", "/api/v2/" .. t .. "/" .. id .. "/vote/", auth)
   elseif kind == "follow" then
      return wrk.format("POST", "/api/v2/user/" .. other_user() .. "/follow/", auth)
   elseif kind == "post" then
      n_posts = n_posts + 1
      local body = string.format(
         '{"text": "mixed %s u%d %d: a post written during the benchmark.", "categories": [%d]}',
         prefix, my_uid, n_posts, math.random(1, categories))
      return wrk.format("POST", "/api/v2/post/", json_auth, body)
   end
   -- refresh: every token is presented once; its answer's new token joins the back
   local rt = my_pool[rt_head]
   my_pool[rt_head] = nil
   rt_head = rt_head + 1
   record:write("used ", rt, "\n")
   return wrk.format("POST", "/oauth/token/", form,
                     "grant_type=refresh_token&client_id=" .. client .. "&refresh_token=" .. urlencode(rt))
end

function request()
   local kind = pick()
   if kind == "refresh" and rt_head > rt_tail then
      -- this connection lost its last refresh token (in flight when a run stopped)
      record:write("skipped refresh\n")
      kind = "me"
   end
   pending_kind, pending_t0 = kind, now_us()
   return build(kind)
end

function response(status, headers, body)
   local kind = pending_kind
   if kind == nil then return end
   pending_kind = nil
   record:write(kind, " ", status, " ", math.floor(now_us() - pending_t0 + 0.5), "\n")
   if kind == "refresh" and status == 200 then
      local rt = body:match('"refresh_token"%s*:%s*"([^"]+)"')
      if rt then
         rt_tail = rt_tail + 1; my_pool[rt_tail] = rt
         record:write("token ", rt, "\n")
      end
   end
end

-- Nothing is gathered in done(): wrk's thread:get cannot copy these tables between Lua
-- states safely (its table copy pops one value too many), so each thread appends its
-- record to its own file and the harness reads the files once wrk has exited (exit
-- flushes them).
