// Interop check, run by scripts/test (and so by CI): drives a running hearth through the
// platform's own JavaScript SDK, @selfcommunity/api-services, for issue 5's routes.
// By hand (the pinned packages of tests/interop/package*.json):
//
//   mkdir -p /tmp/sdkcheck && cp tests/interop/package*.json /tmp/sdkcheck/ && npm ci --prefix /tmp/sdkcheck
//   hearth --db /tmp/c.db init
//   for u in alice bob carol; do echo pw-$u | hearth --db /tmp/c.db user create --username $u --password-stdin; done
//   echo pw-root | hearth --db /tmp/c.db user create --username root --staff --password-stdin
//   hearth --db /tmp/c.db serve --listen 127.0.0.1:18455 &
//   cd /tmp/sdkcheck && HEARTH_URL=http://127.0.0.1:18455 HEARTH_DB=/tmp/c.db \
//     node /path/to/hearth/tests/interop/sdk_community.mjs
//
// Users 1..3 are plain users, 4 is staff; tokens are minted with `hearth jwt mint`
// (HEARTH_BIN, default `hearth`). Exits non-zero on the first disagreement.

import { createRequire } from 'node:module';
import { drive, ok, checks } from './sdk_hearth.mjs';

const require = createRequire(process.cwd() + '/');
const sdk = require('@selfcommunity/api-services');
const { http, PreferenceService, ReactionService, UserService } = sdk;

const { base, as } = drive(http, '/tmp/c.db');


// --- reactions (anonymous)
as(null);
const reactions = await ReactionService.getAllReactions({ limit: 2 });
ok(reactions.count === 6 && reactions.results.length === 2, 'ReactionService.getAllReactions pages');
ok(reactions.next?.startsWith(base + '/api/v2/reaction/?'), 'next is an absolute URL');
// getAllReactionsList(params) re-requests its first URL instead of `next` whenever a
// page has a next link (an SDK bug: its own `url` overrides the one passed in config),
// so it is only usable when everything fits the default page, as here.
const allReactions = await ReactionService.getAllReactionsList({});
ok(allReactions.map((r) => r.label).join() === 'like,love,haha,wow,sad,angry', 'getAllReactionsList');
const wow = await ReactionService.getSpecificReaction(4);
ok(wow.label === 'wow' && wow.sentiment === 0 && wow.image === `${base}/static/reactions/wow.svg`, 'getSpecificReaction');

// --- preferences
const prefs = await PreferenceService.getAllPreferences();
ok(prefs.count === prefs.results.length && prefs.count > 20, 'getAllPreferences returns every preference in one page');
const found = await PreferenceService.searchPreferences(
  undefined, undefined, 'configurations.content_availability', undefined,
);
ok(found.results.length === 1 && found.results[0].value === true, 'searchPreferences by keys, typed boolean');
const ordered = await PreferenceService.searchPreferences('color', 'colors', undefined, '-name');
ok(ordered.results.length > 0 && ordered.results.every((p) => p.section === 'colors'), 'searchPreferences search+section+ordering');
const one = await PreferenceService.getSpecificPreference(found.results[0].id);
ok(one.name === 'content_availability', 'getSpecificPreference');
as(4);
const patched = await PreferenceService.updatePreferences({ 'covers.covers_visibility': 2 });
ok(Array.isArray(patched) && patched[0].value === 2, 'updatePreferences as staff');
as(1);
try {
  await PreferenceService.updatePreferences({ 'covers.covers_visibility': 3 });
  ok(false, 'updatePreferences as non-staff must fail');
} catch (e) {
  ok(e.response?.status === 403, 'updatePreferences as non-staff is 403');
}

// --- follows: 1 follows 2 and 3, 2 follows 1 back (toggle twice where already set)
const follows = async (who, whom) => {
  as(who);
  if (!(await UserService.checkUserFollowed(whom)).is_followed) await UserService.followUser(whom);
};
await follows(1, 2);
await follows(1, 3);
await follows(2, 1);
as(1);
ok((await UserService.checkUserFollower(2)).is_follower === true, 'checkUserFollower');
ok((await UserService.checkUserFollowed(3)).is_followed === true, 'checkUserFollowed');
as(null);
const followings = await UserService.getUserFollowings(1, {});
ok(followings.count === 2 && followings.results[0].id === 2, 'getUserFollowings: mutual first');
const mutual = await UserService.getUserFollowings(1, { mutual: 1 });
ok(mutual.count === 1 && mutual.results[0].username === 'bob', 'getUserFollowings mutual=1');
const nonMutual = await UserService.getUserFollowings(1, { mutual: 0 });
ok(nonMutual.count === 1 && nonMutual.results[0].username === 'carol', 'getUserFollowings mutual=0');
const followers = await UserService.getUserFollowers(1, { limit: 1 });
ok(followers.count === 1 && followers.results[0].connection_status === null, 'getUserFollowers (anonymous: connection_status null)');
as(3);
const seenBy3 = await UserService.getSpecificUser(1);
ok(seenBy3.followings_counter === 2 && seenBy3.followers_counter === 1, 'getSpecificUser counters');
try {
  await UserService.followUser(3);
  ok(false, 'following yourself must fail');
} catch (e) {
  ok(e.response?.status === 400, 'followUser(self) is 400');
}
console.log(`${checks()} checks passed against ${base}`);
