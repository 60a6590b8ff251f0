// A diagnostic for a hearth without SPEC §8, never part of the test: with UI_DISCOVER=1
// the driver answers, in the browser, the §8 requests hearth cannot answer yet with the
// shapes §8 gives them (built from the seeded data), and adds §8's fields to the
// discussion hearth returns. The kit then goes on to the requests and the fields it
// needs next, which is how docs/ui-kit.md's list was made. Every answer made here is
// recorded with the status `stub`.

const like = (portal) => ({
  id: 1,
  label: 'like',
  image: `${portal}/static/reactions/like.svg`,
  sentiment: 1,
  active: true,
});

const page = (results) => ({ count: results.length, next: null, previous: null, results });

// what §8 adds to every contribution, with the seed's votes (bob, carol and dave like
// the discussion; alice, who looks, did not vote)
const contributionFields = (portal, obj) => ({
  slug: 'which-flour-for-a-first-loaf',
  last_activity_at: obj.added_at,
  view_count: 0,
  share_count: 0,
  flag_count: 0,
  follower_count: 0,
  followed: false,
  collapsed: false,
  suspended: false,
  medias: [],
  addressing: [],
  tags: [],
  location: null,
  poll: null,
  group: null,
  event: null,
  vote_count: 3,
  reactions_count: [{ reaction: like(portal), count: 3 }],
  voted: false,
  reaction: null,
});

const commentFields = (portal, obj) => ({
  ...contributionFields(portal, obj),
  slug: undefined,
  vote_count: 0,
  reactions_count: [],
  in_reply_to: null,
  latest_comments: [],
});

const category = (portal, id, name, followers) => ({
  id,
  name,
  slug: name.toLowerCase(),
  active: true,
  deleted: false,
  order: 0,
  description: '',
  followers_counter: followers,
  followed: id === 1 || id === 2,
  image_original: `${portal}/static/default/cover.svg`,
  image_bigger: `${portal}/static/default/cover.svg`,
  image_big: `${portal}/static/default/cover.svg`,
  image_medium: `${portal}/static/default/cover.svg`,
  image_small: `${portal}/static/default/cover.svg`,
  emotional_image_original: `${portal}/static/default/cover.svg`,
});

/** Routes the §8 requests of `page` (a Playwright page) to stubs; `stubbed` collects
 * the URLs answered here. */
export async function stubSection8(pw, { portal, pageOrigin, stubbed }) {
  const cors = { 'access-control-allow-origin': pageOrigin, 'content-type': 'application/json' };
  const user = async (route, id) => {
    const r = await route.fetch({ url: `${portal}/api/v2/user/${id}/` });
    return r.json();
  };
  const stubs = [
    [/\/api\/v2\/feature\/(\?.*)?$/, async () =>
      page(['reaction', 'course', 'api_v2'].map((name, i) => ({ id: i + 1, name, enabled: true })))],
    [/\/api\/v2\/user\/hidden_users_id\/(\?.*)?$/, async () => []],
    [/\/api\/v2\/user\/hidden_users\/(\?.*)?$/, async () => page([])],
    [/\/api\/v2\/user\/\d+\/is_hidden\/(\?.*)?$/, async () => ({ is_hidden: false })],
    [/\/api\/v2\/user\/\d+\/is_hidden_by\/(\?.*)?$/, async () => ({ is_hidden_by: false })],
    [/\/api\/v2\/user\/\d+\/settings\/(\?.*)?$/, async () => ({
      qa_frequency: 0,
      email_notification_not_qa: 0,
      mobile_notifications_scmty: 1,
      show_toast_notifications: 1,
      toast_notifications_emit_sound: 1,
    })],
    [/\/api\/v2\/user\/1\/courses\/(\?.*)?$/, async (route) => {
      const r = await route.fetch({ url: `${portal}/api/v2/course/1/` });
      return page([await r.json()]);
    }],
    [/\/api\/v2\/category\/popular\/(\?.*)?$/, async () =>
      page([category(portal, 1, 'Baking', 3), category(portal, 2, 'Gardening', 2), category(portal, 3, 'Music', 0)])],
    [/\/api\/v2\/user\/1\/categories\/(\?.*)?$/, async () =>
      page([category(portal, 1, 'Baking', 3), category(portal, 2, 'Gardening', 2)])],
    [/\/api\/v2\/category\/(\d+)\/is_followed\/(\?.*)?$/, async (route, m) => ({ is_followed: m[1] !== '3' })],
    [/\/api\/v2\/discussion\/1\/contributors\/(\?.*)?$/, async (route) =>
      page([await user(route, 4), await user(route, 3)])],
    [/\/api\/v2\/discussion\/1\/vote\/(\?.*)?$/, async (route) => {
      if (route.request().method() !== 'GET') return null;
      const votes = [];
      for (const id of [4, 3, 2]) {
        votes.push({ user: await user(route, id), reaction: like(portal), voted_at: '2025-03-03T10:00:00.000000Z' });
      }
      return page(votes);
    }],
    [/\/api\/v2\/discussion\/1\/$/, async (route) => {
      const r = await route.fetch();
      const obj = await r.json();
      return { ...obj, ...contributionFields(portal, obj) };
    }],
    // comments: §8's fields too (nobody voted on them), and in_reply_to, latest_comments
    [/\/api\/v2\/comment\/\d+\/$/, async (route) => {
      const obj = await (await route.fetch()).json();
      return { ...obj, ...commentFields(portal, obj) };
    }],
    [/\/api\/v2\/comment\/\?/, async (route) => {
      const list = await (await route.fetch()).json();
      return { ...list, results: list.results.map((c) => ({ ...c, ...commentFields(portal, c) })) };
    }],
  ];
  await pw.route(`${portal}/**`, async (route) => {
    const url = route.request().url();
    if (process.env.UI_DEBUG) console.log('debug: route', route.request().method(), url);
    for (const [re, answer] of stubs) {
      const m = re.exec(url.slice(portal.length));
      if (!m || route.request().method() === 'OPTIONS') continue;
      const body = await answer(route, m);
      if (body === null) break;
      stubbed.add(url);
      await route.fulfill({ status: 200, headers: cors, body: JSON.stringify(body) });
      return;
    }
    await route.continue();
  });
}
