// Interop check, run by scripts/test: drives a running hearth through the platform's own
// JavaScript SDK, @selfcommunity/api-services, for what the UI kit reads (SPEC §8):
// features, votes, contributors, categories and following them, a user's courses,
// hiding users, user settings. Same setup as sdk_community.mjs (users 1..3 plain, 4
// staff), plus a category (id 1):
//
//   hearth --db /tmp/k.db category create --name Science
//   cd /tmp/sdkcheck && HEARTH_URL=http://127.0.0.1:18455 HEARTH_DB=/tmp/k.db \
//     node /path/to/hearth/tests/interop/sdk_kit.mjs
//
// Exits non-zero on the first disagreement.

import { createRequire } from 'node:module';
import { drive, ok, checks } from './sdk_hearth.mjs';

const require = createRequire(process.cwd() + '/');
const sdk = require('@selfcommunity/api-services');
const { http, FeatureService, FeedObjectService, CommentService, CategoryService, UserService, CourseService } = sdk;

const { base, as } = drive(http, '/tmp/k.db');
const post = async (url, data) => (await http.request({ url, method: 'POST', data })).data;

const status = async (promise) => {
  try {
    await promise;
    return 200;
  } catch (e) {
    return e.response?.status;
  }
};

// --- features: what the preferences provider waits for
as(null);
const features = await FeatureService.getAllFeatures();
ok(
  features.results.filter((f) => f.enabled).map((f) => f.name).join() === 'api_v2,reaction,course',
  'FeatureService.getAllFeatures: what hearth implements, enabled',
);

// --- content: alice posts, carol comments
as(1);
const p = await post('/api/v2/post/', { text: 'Hello kit', categories: [1] });
as(3);
const c = await post('/api/v2/comment/', { text: 'hi', post: p.id });

// --- votes
as(2);
await FeedObjectService.voteFeedObject('post', p.id, 2);
const seen = await FeedObjectService.getSpecificFeedObject('post', p.id);
ok(seen.vote_count === 1 && seen.voted === true && seen.reaction?.label === 'love', 'voteFeedObject, then the post shows the vote');
ok(seen.reactions_count.length === 1 && seen.reactions_count[0].count === 1, 'reactions_count');
ok(Array.isArray(seen.medias) && Array.isArray(seen.addressing) && seen.slug === 'hello-kit', 'the fields FeedObject reads');
const votes = await FeedObjectService.feedObjectVotes('post', p.id, {});
ok(votes.count === 1 && votes.results[0].user.username === 'bob' && votes.results[0].reaction.id === 2, 'feedObjectVotes');
await CommentService.upvoteComment(c.id);
const commentVotes = await CommentService.getSpecificCommentVotesList(c.id);
ok(commentVotes.count === 1 && commentVotes.results[0].reaction.label === 'like', 'upvoteComment (like by default), getSpecificCommentVotesList');
await FeedObjectService.voteFeedObject('post', p.id, 2);
ok((await FeedObjectService.getSpecificFeedObject('post', p.id)).vote_count === 0, 'the same vote again takes it back');
ok((await status(FeedObjectService.voteFeedObject('post', p.id, 99))) === 400, 'an unknown reaction is 400');

// --- contributors
const contributors = await FeedObjectService.feedObjectContributorsList('post', p.id, {});
ok(contributors.count === 1 && contributors.results[0].username === 'carol', 'feedObjectContributorsList');

// --- categories
await CategoryService.followCategory(1);
ok((await CategoryService.checkCategoryIsFollowed(1)).is_followed === true, 'followCategory, checkCategoryIsFollowed');
const popular = await CategoryService.getPopularCategories({ limit: 5 });
ok(popular.results[0].id === 1 && popular.results[0].followers_counter === 1 && popular.results[0].followed === true, 'getPopularCategories');
const all = await CategoryService.getAllCategories({});
ok(all.count === 1 && all.results[0].image_medium.startsWith(base), 'getAllCategories');
const mine = await UserService.getUserFollowedCategories(2);
ok(Array.isArray(mine) && mine.map((k) => k.id).join() === '1', 'getUserFollowedCategories: the array the SDK types say');
ok((await UserService.getSpecificUser(2)).categories_counter === 1, 'categories_counter');

// --- a user's courses
as(1);
const course = await CourseService.createCourse({ name: 'Kit course', type: 'self-paced', privacy: 'open' });
as(null);
const courses = await CourseService.getUserJoinedCourses(1, {});
ok(courses.count === 1 && courses.results[0].id === course.id, 'getUserJoinedCourses');

// --- hiding
as(1);
await UserService.showHideUser(3);
ok((await UserService.checkUserHidden(3)).is_hidden === true, 'showHideUser, checkUserHidden');
ok(JSON.stringify(await UserService.getHiddenUsersId()) === '[3]', 'getHiddenUsersId: number[]');
ok((await UserService.getHiddenUsers()).results[0].username === 'carol', 'getHiddenUsers');
ok((await FeedObjectService.feedObjectContributorsList('post', p.id, {})).count === 0, 'a hidden user leaves the contributors');
as(3);
ok((await UserService.checkUserHiddenBy(1)).is_hidden_by === true, 'checkUserHiddenBy');

// --- settings
as(1);
const settings = await UserService.userSettings(1);
ok(settings.qa_frequency === 1 && settings.show_toast_notifications === 1, 'userSettings: defaults');
const changed = await UserService.userSettingsPatch(1, { qa_frequency: -1 });
ok(changed.qa_frequency === -1 && changed.toast_notifications_emit_sound === 1, 'userSettingsPatch answers the whole object');
ok((await status(UserService.userSettings(2))) === 403, "another user's settings are 403");
ok((await status(UserService.userSettingsPatch(1, { qa_frequency: 'often' }))) === 400, 'a non-integer setting is 400');

console.log(`${checks()} checks passed against ${base}`);
