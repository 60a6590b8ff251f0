// The course view of the UI suite, run by run.mjs after the poll views.
// alice makes an open course "Bread basics" with three sections through the API and
// orders them Baking, Starter, Dough (sections_order); bob's page mounts react-templates
// Course, which asks hearth for the course with ?view=user and shows its sections in
// react-ui's AccordionLessons: each name, in that order, as hearth lists them; he
// signs up with the page's button and hearth holds him as a member.

export async function courseViews(t) {
  const { visit, check, api, page, must, USERS, WAIT_MS, token, viewTokens, setIds } = t;
  const { alice, bob } = USERS;
  const ORDER = ['Baking', 'Starter', 'Dough'];
  let course = null;

  await check(`course: alice makes "Bread basics" (open) with three sections, ordered ${ORDER.join(', ')}`, async () => {
    const r = await api(alice, 'POST', '/api/v2/course/', { name: 'Bread basics', type: 'self-paced', privacy: 'open', description: 'From starter to crumb.' });
    must(r.status === 201, `POST /course/: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    course = r.json.id;
    const ids = {};
    for (const name of ['Starter', 'Dough', 'Baking']) {
      const s = await api(alice, 'POST', `/api/v2/course/${course}/section/`, { name });
      must(s.status === 201, `section ${name}: ${s.status}`);
      ids[name] = s.json.id;
    }
    const p = await api(alice, 'PATCH', `/api/v2/course/${course}/`, { sections_order: ORDER.map((n) => ids[n]) });
    must(p.status === 200, `PATCH sections_order: ${p.status} ${JSON.stringify(p.json).slice(0, 300)}`);
    const seen = (await api(bob, 'GET', `/api/v2/course/${course}/?view=user`)).json.sections.map((s) => s.name);
    must(JSON.stringify(seen) === JSON.stringify(ORDER), `hearth's sections for bob: ${JSON.stringify(seen)}`);
    Object.assign(viewTokens, { course: token(bob) });
    setIds({ course });
  });

  await visit('course', async () => {
    await check(`course: bob's course page (react-templates Course) shows "Bread basics" and its sections in AccordionLessons, in hearth's order: ${ORDER.join(', ')}`, async () => {
      must(course, 'no course (the seed above failed)');
      const accordion = page.locator('.SCAccordionLessons-root');
      await accordion.getByText('Dough').first().waitFor({ timeout: WAIT_MS });
      const text = await accordion.innerText();
      const at = ORDER.map((n) => text.indexOf(n));
      must(at.every((i) => i >= 0) && at[0] < at[1] && at[1] < at[2], `the accordion: ${text.slice(0, 300)}`);
    });
    await check('course: bob clicks "Sign up for the Course": hearth answers the join and holds him as a member of the open course', async () => {
      must(course, 'no course (the seed above failed)');
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().includes(`/api/v2/course/${course}/join/`) && r.request().method() === 'POST', { timeout: WAIT_MS }),
        page.locator('button', { hasText: 'Sign up for the Course' }).first().click(),
      ]);
      must(resp.ok(), `POST /course/${course}/join/ answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      const got = (await api(bob, 'GET', `/api/v2/course/${course}/`)).json;
      must(got.join_status === 'joined', `bob's join_status: ${got.join_status}`);
      // the kit shows the join's answer in place of the course: its sections stay
      await page.getByText('Start the Course').first().waitFor({ timeout: WAIT_MS });
      const text = await page.locator('.SCAccordionLessons-root').innerText();
      must(ORDER.every((n) => text.includes(n)), `after the join: ${text.slice(0, 300)}`);
    });
  }, { fullPage: false });
}
