-- Anonymous read of 8 dynamic preferences by key (one page), as the SDK does at start-up.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
wrk.method = "GET"
wrk.path = "/api/v2/dynamic_preference/search/?keys=" ..
   "text.application_name,configurations.content_availability,configurations.courses_enabled," ..
   "configurations.follow_enabled,colors.colorprimary,addons.polls_enabled," ..
   "loyalty.points_make_post,configurations.comments_enabled"
