// The tags and onboarding views of the UI suite (issue 32), run by run.mjs last (they make
// alice, the community's creator, staff).
//
// Tags: alice (staff) creates the tag "Sourdough club" and gives it to bob through the API
// (POST /api/v2/tag/, /tag/{id}/assign/). Carol's page shows bob's UserInfo with its tags
// field, where the kit puts the tag as a chip in its colour. No post is addressed to it:
// hearth offers the composer no tag and refuses `addressing` (it does not hide an item
// from those without the tag, which the kit would promise; docs/decisions.md).
//
// Onboarding: with configurations.onboarding_enabled on, alice's OnBoardingWidget lists
// hearth's six steps; she opens "Download the app" and presses its Ok!: hearth records
// the step completed (confirmed through the API), and the widget checks it off.

export async function tagsViews(t) {
  const { visit, check, api, hearth, page, portal, must, USERS, WAIT_MS, token, viewTokens, setIds } = t;
  const { alice, bob } = USERS;
  let tag = null;
  await check("tags: alice made staff (hearth user set-staff); she creates \"Sourdough club\" and gives it to bob; hearth offers no tag to address a post to and refuses addressing", async () => {
    hearth('user', 'set-staff', 'alice', 'true');
    const r = await api(alice, 'POST', '/api/v2/tag/', { name: 'Sourdough club', color: '#2e7d32', description: 'Keeps a starter alive' });
    must(r.status === 201, `create: ${r.status} ${JSON.stringify(r.json)}`);
    tag = r.json;
    const a = await api(alice, 'POST', `/api/v2/tag/${tag.id}/assign/`, { user: bob });
    must(a.status === 200, `assign: ${a.status} ${JSON.stringify(a.json)}`);
    const may = await api(bob, 'GET', '/api/v2/user/tag/tags_to_address_a_contribution/');
    must(Array.isArray(may.json) && may.json.length === 0, `bob may address: ${JSON.stringify(may.json)}`);
    const p = await api(bob, 'POST', '/api/v2/post/', { text: '<p class="SCEditor-paragraph">Feeding day for the starters</p>', addressing: [tag.id] });
    must(p.status === 400 && p.json.errors?.[0]?.field === 'addressing', `post: ${p.status} ${JSON.stringify(p.json).slice(0, 300)}`);
    Object.assign(viewTokens, { tags: token(USERS.carol), onboarding: token(alice) });
    setIds({ bob });
  });
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
