// The tags and onboarding views of the UI suite (issue 32), run by run.mjs last (they make
// alice, the community's creator, staff).
//
// Tags: alice (staff) creates the tag "Sourdough club" and gives it to bob through the API
// (POST /api/v2/tag/, /tag/{id}/assign/); hearth offers bob that tag to address a post to.
//
// Address: on bob's page he writes a post in the kit's Composer, opens its audience layer,
// picks the "tag" audience and "Sourdough club" in its list, saves and publishes: the
// Composer sends `addressing: [id]`, and the explore feed shows the post with the label
// icon whose popper holds the tag's chip. Through the API: alice (staff) reads it, carol (no tag) gets 404.
//
// Tags (carol's page): bob's UserInfo with its tags field, where the kit puts the tag as
// a chip in its colour, and the explore feed as carol sees it: without bob's post.
//
// Onboarding: with configurations.onboarding_enabled on, alice's OnBoardingWidget lists
// hearth's six steps; she opens "Download the app" and presses its Ok!: hearth records
// the step completed (confirmed through the API), and the widget checks it off.

export async function tagsViews(t) {
  const { visit, check, api, hearth, page, portal, must, USERS, WAIT_MS, token, viewTokens, setIds } = t;
  const { alice, bob } = USERS;
  let tag = null;
  const CLUB_POST = 'Feeding day for the starters, club members only';
  let addressed = null;
  await check("tags: alice made staff (hearth user set-staff); she creates \"Sourdough club\" and gives it to bob; hearth offers him that tag to address a post to", async () => {
    hearth('user', 'set-staff', 'alice', 'true');
    const r = await api(alice, 'POST', '/api/v2/tag/', { name: 'Sourdough club', color: '#2e7d32', description: 'Keeps a starter alive' });
    must(r.status === 201, `create: ${r.status} ${JSON.stringify(r.json)}`);
    tag = r.json;
    const a = await api(alice, 'POST', `/api/v2/tag/${tag.id}/assign/`, { user: bob });
    must(a.status === 200, `assign: ${a.status} ${JSON.stringify(a.json)}`);
    const may = await api(bob, 'GET', '/api/v2/user/tag/tags_to_address_a_contribution/');
    must(may.json.map((x) => x.name).join() === 'Sourdough club', `bob may address: ${JSON.stringify(may.json)}`);
    const carols = await api(USERS.carol, 'GET', '/api/v2/user/tag/tags_to_address_a_contribution/');
    must(Array.isArray(carols.json) && carols.json.length === 0, `carol may address: ${JSON.stringify(carols.json)}`);
    Object.assign(viewTokens, { address: token(bob), tags: token(USERS.carol), onboarding: token(alice) });
    setIds({ bob });
  });
  await visit('address', async () => {
    await check("address: bob's Composer addresses a post to \"Sourdough club\" (audience layer, tag tab); the feed shows it with the chip; alice (staff) reads it, carol gets 404", async () => {
      must(tag, 'no tag (the seed above failed)');
      const open = page.getByTestId('address-composer').locator('.SCInlineComposerWidget-root button').first();
      await open.waitFor({ timeout: WAIT_MS });
      const editor = page.locator('.SCComposer-root [contenteditable="true"]');
      for (let i = 0; i < 3 && !(await editor.isVisible()); i++) {
        await open.click();
        await editor.waitFor({ timeout: 5000 }).catch(() => {});
      }
      await editor.click();
      await page.keyboard.type(CLUB_POST, { delay: 5 });
      // the audience button shows the "public" icon while the post is for everyone
      await page.locator('.SCComposer-root button').filter({ hasText: /^public$/ }).first().click();
      await page.getByRole('tab').filter({ hasText: 'label' }).first().click();
      const [offered] = await Promise.all([
        page.waitForResponse((r) => r.url().startsWith(`${portal}/api/v2/user/tag/tags_to_address_a_contribution/`), { timeout: WAIT_MS }).catch(() => null),
        page.locator('.SCComposer-root').getByRole('combobox').first().click(),
      ]);
      must(!offered || offered.status() === 200, `the tags to address answered ${offered?.status()}`);
      await page.getByRole('option').filter({ hasText: 'Sourdough club' }).first().click();
      // the layer's "Done" keeps the chosen tags for the post
      await page.locator('.SCComposer-root').getByRole('button', { name: 'Done' }).first().click();
      const publish = page.locator('.SCComposer-root button[type="submit"]');
      await page.waitForFunction((b) => !b.disabled, await publish.elementHandle(), { timeout: WAIT_MS });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => /\/api\/v2\/(post|discussion)\/$/.test(r.url()) && r.request().method() === 'POST', { timeout: WAIT_MS }),
        publish.click(),
      ]);
      must(resp.status() === 201, `publish answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      const sent = resp.request().postDataJSON();
      must(JSON.stringify(sent.addressing) === JSON.stringify([tag.id]), `the Composer sent addressing ${JSON.stringify(sent.addressing)}`);
      addressed = await resp.json();
      must(addressed.addressing.map((x) => x.name).join() === 'Sourdough club', `the post's addressing: ${JSON.stringify(addressed.addressing)}`);
      const path = `/api/v2/${addressed.type}/${addressed.id}/`;
      const asAlice = await api(alice, 'GET', path);
      must(asAlice.status === 200, `alice (staff) reads it: ${asAlice.status}`);
      const asCarol = await api(USERS.carol, 'GET', path);
      must(asCarol.status === 404, `carol (no tag) reads it: ${asCarol.status}`);
      await page.reload();
      const card = page.getByTestId('address-feed').locator('.SCFeedObject-root').filter({ hasText: CLUB_POST }).first();
      await card.waitFor({ timeout: WAIT_MS });
      // the card's header shows the "label" icon of an addressed item; its popper lists the tags
      const label = card.locator('[aria-haspopup="true"]').filter({ hasText: /^label$/ }).first();
      await label.click({ timeout: WAIT_MS }).catch(async (e) => {
        throw new Error(`${e.message}: the card holds ${(await card.innerHTML()).slice(0, 1500)}`);
      });
      const chip = page.locator('.MuiChip-root', { hasText: 'Sourdough club' }).first();
      await chip.waitFor({ timeout: WAIT_MS });
      const bg = await chip.evaluate((el) => getComputedStyle(el).backgroundColor);
      must(bg === 'rgb(46, 125, 50)', `the chip's colour: ${bg}`);
    });
  }, { fullPage: false });
  await visit('tags', async () => {
    await check("tags: bob's UserInfo shows the chip \"Sourdough club\" in its colour", async () => {
      must(tag, 'no tag (the seed above failed)');
      const chip = page.getByTestId('user-info').locator('.MuiChip-root', { hasText: 'Sourdough club' }).first();
      await chip.waitFor({ timeout: WAIT_MS });
      const bg = await chip.evaluate((el) => getComputedStyle(el).backgroundColor);
      must(bg === 'rgb(46, 125, 50)', `the chip's colour: ${bg}`);
      const profile = await api(USERS.carol, 'GET', `/api/v2/user/${bob}/`);
      must(profile.json.tags.map((x) => x.name).join() === 'Sourdough club', `bob's tags: ${JSON.stringify(profile.json.tags)}`);
    });
    await check("tags: carol's explore feed shows posts, and not bob's post for the club", async () => {
      must(addressed, 'no addressed post (the address view failed)');
      const feed = page.getByTestId('tags-feed');
      await feed.locator('.SCFeedObject-root').first().waitFor({ timeout: WAIT_MS });
      const shown = await feed.locator('.SCFeedObject-root').filter({ hasText: CLUB_POST }).count();
      must(shown === 0, `carol's feed shows the addressed post ${shown} times`);
      const explore = await api(USERS.carol, 'GET', '/api/v2/feed/explore/?limit=50');
      must(!explore.json.results.some((u) => u[u.type]?.id === addressed.id && u.type === addressed.type), 'the explore API gives carol the addressed post');
    });
  }, { fullPage: false });

  await check('onboarding: on (hearth pref set configurations.onboarding_enabled true)', async () => {
    hearth('pref', 'set', 'configurations.onboarding_enabled', 'true');
  });
  await visit('onboarding', async () => {
    await check("onboarding: alice's widget lists the six steps; on \"Download the app\" she presses Ok!: hearth records it completed", async () => {
      const root = page.getByTestId('onboarding');
      await root.getByText('Download the app').first().waitFor({ timeout: WAIT_MS });
      for (const label of ['Contents', 'Categories', 'Appearance', 'My Profile', 'Invite users']) {
        await root.getByText(label, { exact: true }).first().waitFor({ timeout: WAIT_MS });
      }
      await root.getByText('Download the app').first().click();
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/onboarding/6/complete/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        root.getByRole('button', { name: 'Ok!' }).first().click(),
      ]);
      must(resp.status() === 200, `complete answered ${resp.status()}`);
      const step = await api(alice, 'GET', '/api/v2/onboarding/6/');
      must(step.json.status === 'completed' && step.json.completion_percentage === 100, `step 6: ${JSON.stringify(step.json)}`);
      const steps = await api(alice, 'GET', '/api/v2/onboarding/');
      must(steps.json.results.filter((s) => s.status === 'completed').length === 1, `steps: ${JSON.stringify(steps.json.results)}`);
      await root.getByRole('button', { name: 'Ok!' }).first().isDisabled().then((d) => must(d, 'Ok! is still enabled'));
    });
  }, { fullPage: false });
}
