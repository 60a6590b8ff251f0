-- 50 wrong-password grants per second on one connection (delay 11 ms: about 50 a second with the answer time between them)
-- Issue 8 item 5: run beside a me_jwt load, e.g.
--   CLIENT_ID=<password app> wrk -t1 -c1 -d10s -s bench/lua/password_flood.lua http://127.0.0.1:PORT
-- (wrong passwords for random users; the brute-force limit answers 429 without hashing)
local client_id = os.getenv("CLIENT_ID") or ""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
local codes = {}
request = function()
  local body = string.format("grant_type=password&client_id=" .. client_id .. "&username=user%06d&password=wrong", math.random(1, 20000))
  return wrk.format(nil, "/oauth/token/", nil, body)
end
delay = function() return 11 end
response = function(status) codes[status] = (codes[status] or 0) + 1 end
done = function(summary)
  io.write(string.format("flood: %d attempts in %.1f s (%.1f/s)\n", summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6)))
end
