// The groups views of the UI suite (issue 33), run by run.mjs after the people views.
// Groups are turned on for the whole community first (hearth pref set
// configurations.groups_enabled true, with private and hidden groups allowed). `t` holds
// run.mjs's helpers and state.
//
// alice makes a group with the kit's CreateGroupButton and GroupForm (a private group:
// the form's default); on the group's page (react-templates Group) she invites bob with
// GroupInviteButton; bob, on the same page, accepts with GroupSubscribeButton; then he
// posts with the group feed's InlineComposerWidget, and the group feed shows the post.
// alice's Groups list shows the group. Every step is confirmed through hearth's API,
// and the private group's post stays out of the community-wide feeds.

import { publishInFeed } from './compose.mjs';

export async function groupsViews(t) {
  const { visit, check, api, hearth, page, portal, must, USERS, WAIT_MS, token, viewTokens, setIds } = t;
  const { alice, bob } = USERS;
  const NAME = 'Sourdough circle';
  let group = null;
  let post = null;

  await check('groups: on (hearth pref set configurations.groups_enabled true, private and hidden groups allowed); /feature/ lists grouping and tagging', async () => {
    for (const key of ['groups_enabled', 'groups_private_enabled', 'groups_visibility_enabled']) {
      hearth('pref', 'set', `configurations.${key}`, 'true');
    }
    const names = (await api(alice, 'GET', '/api/v2/feature/')).json.results.map((f) => f.name);
    must(names.includes('grouping') && names.includes('tagging'), `features: ${names.join(', ')}`);
    Object.assign(viewTokens, { 'group-create': token(alice), 'group-invite': token(alice), 'group-accept': token(bob), 'group-post': token(bob), groups: token(alice) });
    setIds({});
  });

  await visit('group-create', async () => {
    await check("group-create: the navbar's composer button lists what /user/me/'s permission lets alice create: content, a course, a group (events are off)", async () => {
      const me = (await api(alice, 'GET', '/api/v2/user/me/')).json;
      must(me.permission && me.permission.create_group === true && me.permission.create_course === true && me.permission.create_event === false, `permission: ${JSON.stringify(me.permission)}`);
      await page.locator('.SCComposerIconButton-root').first().click();
      const menu = page.locator('.MuiPopper-root, .MuiPopover-root, .MuiDrawer-root').filter({ hasText: 'Create a group' }).first();
      await menu.waitFor({ timeout: WAIT_MS });
      // each item is its icon's ligature, then its text
      const items = (await menu.locator('li').allInnerTexts()).map((i) => i.trim().split('\n').pop());
      const want = ['Create a content', 'Create a course', 'Create a group'];
      must(JSON.stringify(items) === JSON.stringify(want), `menu: ${JSON.stringify(items)}`);
      // closed as a person closes it: a click beside it (on the menu's backdrop)
      await page.locator('.MuiBackdrop-root').last().click({ position: { x: 5, y: 5 } });
      await menu.waitFor({ state: 'hidden', timeout: WAIT_MS });
    });
    await check(`group-create: alice clicks Create, fills the GroupForm (name, description) and creates "${NAME}": hearth answers 201 with a private group she administers`, async () => {
      await page.locator('.SCCreateGroupButton-root').first().click();
      const form = page.locator('.SCGroupForm-root');
      await form.getByPlaceholder('Group name').waitFor({ timeout: WAIT_MS });
      await form.getByPlaceholder('Group name').fill(NAME);
      await form.getByPlaceholder('Group description').fill('Starters, feeding schedules and crumb shots.');
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/group/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        form.locator('button', { hasText: /^Create$/ }).last().click(),
      ]);
      must(resp.status() === 201, `POST /group/ answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      const made = await resp.json();
      group = made.id;
      const got = (await api(alice, 'GET', `/api/v2/group/${group}/`)).json;
      must(got.name === NAME && got.managed_by.id === alice && got.subscription_status === 'subscribed' && got.privacy === 'private', `the group: ${JSON.stringify(got).slice(0, 300)}`);
      setIds({ group });
    });
  }, { fullPage: false });

  await visit('group-invite', async () => {
    await check("group-invite: on the group's page alice opens Invite, picks bob among the suggestions, End: hearth holds bob's invitation and notifies him", async () => {
      must(group, 'no group (the view before failed)');
      await page.getByText(NAME).first().waitFor({ timeout: WAIT_MS });
      await page.locator('.SCGroupInviteButton-root').first().click();
      const dialog = page.locator('.MuiDialog-root').filter({ hasText: 'Invite to the group' });
      await dialog.locator('.SCGroupInviteButton-suggested').getByText('bob', { exact: true }).first().click();
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/group/${group}/invite/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        dialog.locator('button', { hasText: /^End$/ }).click(),
      ]);
      must(resp.status() === 204, `POST invite/ answered ${resp.status()}`);
      const invited = (await api(alice, 'GET', `/api/v2/group/${group}/invite/`)).json;
      must(invited.results.map((u) => u.id).includes(bob), `invited: ${JSON.stringify(invited)}`);
      const status = (await api(bob, 'GET', `/api/v2/group/${group}/status/`)).json;
      must(status.status === 'invited', `bob's status: ${JSON.stringify(status)}`);
    });
  }, { fullPage: false });

  await visit('group-accept', async () => {
    await check("group-accept: bob, invited, clicks Accept Invitation on the group's page: hearth makes him a member (subscribed, 2 members) and tells alice", async () => {
      must(group, 'no group');
      const accept = page.locator('button', { hasText: 'Accept Invitation' }).first();
      await accept.waitFor({ timeout: WAIT_MS });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/group/${group}/subscribe/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        accept.click(),
      ]);
      must(resp.status() === 204, `POST subscribe/ answered ${resp.status()}`);
      const got = (await api(bob, 'GET', `/api/v2/group/${group}/`)).json;
      must(got.subscription_status === 'subscribed' && got.subscribers_counter === 2, `the group as bob sees it: ${JSON.stringify(got).slice(0, 300)}`);
      const notes = (await api(alice, 'GET', '/api/v2/notification/')).json;
      const types = notes.results.flatMap((g) => g.aggregated.map((n) => n.type));
      must(types.includes('user_accepted_to_join_group'), `alice's notifications: ${types.join(', ')}`);
    });
  }, { fullPage: false });

  // (the kit's group feed shows its composer above the feed's first item: an empty
  // feed shows none, so alice welcomes the members first)
  await check("group-post: alice's welcome post in the group (POST /api/v2/post/ with group)", async () => {
    must(group, 'no group');
    const r = await api(alice, 'POST', '/api/v2/post/', { text: '<p class="SCEditor-paragraph">Welcome! Share your starters here.</p>', group });
    must(r.status === 201 && r.json.group?.id === group, `the welcome post: ${r.status} ${JSON.stringify(r.json?.group)}`);
  });
  await visit('group-post', async () => {
    await check("group-post: bob writes in the group feed's composer and publishes: hearth holds a post in the group, the group feed shows it, the community's explore feed does not", async () => {
      must(group, 'no group');
      await page.getByTestId('group').getByText('Welcome! Share your starters here.').waitFor({ timeout: WAIT_MS });
      const { sent, item } = await publishInFeed(t, { feedId: 'group', composerId: 'group-composer', text: 'Day 3: the starter doubled overnight.' });
      must(sent.group === group, `the Composer sent group ${JSON.stringify(sent.group)}`);
      post = item;
      must(post.group?.id === group, `the post's group: ${JSON.stringify(post.group)}`);
      const feed = (await api(bob, 'GET', `/api/v2/group/${group}/feed/`)).json;
      must(feed.results.some((u) => u[u.type]?.id === post.id), `the group feed: ${JSON.stringify(feed).slice(0, 300)}`);
      const explore = (await api(USERS.carol, 'GET', '/api/v2/feed/explore/?limit=100')).json;
      must(!explore.results.some((u) => u[u.type]?.id === post.id && u.type === post.type), 'the group post is in explore');
      const seen = await api(USERS.carol, 'GET', `/api/v2/${post.type}/${post.id}/`);
      must(seen.status === 404, `carol, no member, reads the post: ${seen.status}`);
    });
  }, { fullPage: false });

  await visit('groups', async () => {
    await check(`groups: alice's Groups list shows "${NAME}" (GET /api/v2/group/)`, async () => {
      await page.getByText(NAME).first().waitFor({ timeout: WAIT_MS });
      const mine = (await api(alice, 'GET', '/api/v2/group/')).json;
      must(mine.results.some((g) => g.id === group), `alice's groups: ${JSON.stringify(mine).slice(0, 300)}`);
    });
  }, { fullPage: false });
}
