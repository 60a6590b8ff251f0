// The course view of the UI suite, run by run.mjs after the poll views.
// alice makes an open course "Bread basics" with three sections through the API and
// orders them Baking, Starter, Dough (sections_order); bob's page mounts react-templates
// Course, which asks hearth for the course with ?view=user and shows its sections in
// react-ui's AccordionLessons: each name, in that order, as hearth lists them; he
// signs up with the page's button and hearth holds him as a member.
// Then alice's two published lessons in Starter (and a draft bob never sees): bob's
// lesson page mounts react-templates Lesson on the first, shows its sanitized text
// and "Lesson 1 of 2", marks it complete with the kit's button (hearth counts it in
// the course's progress), and comments on it in the lesson's comment drawer.
// Last, alice's teacher's dashboard (react-templates Course with viewDashboard): the
// students' average completion, bob's row and his progress ("See"), and the Comments
// tab with bob's comment under its lesson. Then her course editor (react-ui
// EditCourse): she adds a lesson to Baking with the kit's row and publishes it with
// its status select, each confirmed through the API. Between the two, her
// notifications page with bob's lesson comment.

export async function courseViews(t) {
  const { visit, check, api, page, must, USERS, WAIT_MS, token, viewTokens, setIds } = t;
  const { alice, bob } = USERS;
  const ORDER = ['Baking', 'Starter', 'Dough'];
  let course = null;
  let lessons = null;

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

  await check('course: alice writes two published lessons in Starter (markup and a script in the first) and a draft', async () => {
    must(course, 'no course (the seed above failed)');
    const sections = (await api(alice, 'GET', `/api/v2/course/${course}/section/`)).json;
    const starter = sections.find((s) => s.name === 'Starter').id;
    const base = `/api/v2/course/${course}/section/${starter}/lesson/`;
    const made = [];
    for (const body of [
      { name: 'Feed the starter', type: 'lesson', status: 'published', text: '<p class="SCEditor-paragraph">Feed it <b>rye flour</b> and water<img src=x onerror="window.__lessonXss=1"></p><script>window.__lessonXss=2</script>' },
      { name: 'Wait overnight', type: 'lesson', status: 'published', text: '<p>Let it rise.</p>' },
      { name: 'Secret draft', type: 'lesson' },
    ]) {
      const r = await api(alice, 'POST', base, body);
      must(r.status === 201, `POST lesson ${body.name}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
      made.push(r.json.id);
    }
    lessons = { section: starter, first: made[0], second: made[1] };
    const seen = (await api(bob, 'GET', base)).json.map((l) => l.name);
    must(JSON.stringify(seen) === JSON.stringify(['Feed the starter', 'Wait overnight']), `bob's lessons: ${JSON.stringify(seen)}`);
    Object.assign(viewTokens, { lesson: token(bob), 'course-dashboard': token(alice), 'course-notes': token(alice), 'course-edit': token(alice) });
    setIds({ lessonSection: starter, lesson: made[0] });
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
      // the two published lessons count, the draft does not
      await page.getByText('Completed 0 of 2 Lessons').first().waitFor({ timeout: WAIT_MS });
    });
  }, { fullPage: false });

  await visit('lesson', async () => {
    await check('lesson: bob\'s lesson page (react-templates Lesson) shows "Feed the starter", "Lesson 1 of 2" and its text as safe HTML', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      await page.getByText('Feed the starter').first().waitFor({ timeout: WAIT_MS });
      await page.getByText('Lesson 1 of 2').first().waitFor({ timeout: WAIT_MS });
      const flour = page.locator('b', { hasText: 'rye flour' }).first();
      await flour.waitFor({ timeout: WAIT_MS });
      must(!(await page.evaluate(() => window.__lessonXss)), 'the lesson\'s markup ran script');
      const body = await page.locator('body').innerText();
      must(!body.includes('Secret draft'), 'the draft shows to bob');
    });
    await check('lesson: bob clicks "I have completed the lesson": hearth records it and the course counts 1 of 2', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      const url = `/api/v2/course/${course}/section/${lessons.section}/lesson/${lessons.first}/complete/`;
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(url) && r.request().method() === 'POST', { timeout: WAIT_MS }),
        page.locator('button', { hasText: 'I have completed the lesson' }).first().click(),
      ]);
      must(resp.status() === 204, `POST complete/ answered ${resp.status()}`);
      await page.locator('button', { hasText: 'Completed' }).first().waitFor({ timeout: WAIT_MS });
      const got = (await api(bob, 'GET', `/api/v2/course/${course}/`)).json;
      must(got.num_lessons === 2 && got.num_lessons_completed === 1 && got.user_completion_rate === 50,
        `bob's progress: ${got.num_lessons_completed} of ${got.num_lessons}, ${got.user_completion_rate}%`);
      const lesson = (await api(bob, 'GET', `/api/v2/course/${course}/section/${lessons.section}/lesson/${lessons.first}/`)).json;
      must(lesson.completion_status === 'completed', `the lesson reads ${lesson.completion_status}`);
    });
    await check('lesson: bob opens the comments drawer and comments; hearth keeps the comment on the lesson and the drawer shows it', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      await page.locator('button:has-text("chat_bubble_outline")').first().click();
      const box = page.locator('#reply-lessonCommentObjects');
      const editor = box.locator('[contenteditable="true"]');
      await editor.waitFor({ timeout: WAIT_MS });
      await editor.click();
      await page.keyboard.type('Mine doubled <3', { delay: 5 });
      const url = `/api/v2/course/${course}/section/${lessons.section}/lesson/${lessons.first}/comment/`;
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(url) && r.request().method() === 'POST', { timeout: WAIT_MS }),
        // the lesson drawer's box sends with its icon (replyIcon), not a Reply button
        box.locator('.SCCommentObjectReply-icon-reply').click(),
      ]);
      must(resp.status() === 201, `POST comment/ answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      await page.locator('.SCLessonCommentObjects-root').getByText('Mine doubled <3').first().waitFor({ timeout: WAIT_MS });
      const listed = (await api(alice, 'GET', `/api/v2/course/${course}/comment/`)).json;
      must(listed.count === 1 && listed.results[0].extras.lesson.name === 'Feed the starter', `the course's comments: ${JSON.stringify(listed).slice(0, 300)}`);
    });
  }, { fullPage: false });

  await visit('course-dashboard', async () => {
    await check('course-dashboard: alice\'s dashboard shows the average completion (50%: bob did 1 of 2) and bob\'s row in Students', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      const want = (await api(alice, 'GET', `/api/v2/course/${course}/?view=dashboard`)).json.avg_completion_rate;
      must(want === 50, `hearth's avg_completion_rate: ${want}`);
      await page.getByText('Average completion rate').first().waitFor({ timeout: WAIT_MS });
      await page.getByText('50%').first().waitFor({ timeout: WAIT_MS });
      await page.locator('table').getByText('bob').first().waitFor({ timeout: WAIT_MS });
    });
    await check('course-dashboard: alice clicks "See" on bob\'s row: the dialog reads bob\'s course (?user=) with his lesson completed', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().includes(`/api/v2/course/${course}/?user=`) && r.request().method() === 'GET', { timeout: WAIT_MS }),
        page.locator('table button', { hasText: 'See' }).first().click(),
      ]);
      must(resp.ok(), `GET ?user= answered ${resp.status()}`);
      const j = await resp.json();
      must(j.num_lessons_completed === 1 && j.join_status === 'joined', `bob's course: ${j.num_lessons_completed} completed, ${j.join_status}`);
      await page.locator('.MuiDialog-root').getByText('Starter').first().waitFor({ timeout: WAIT_MS });
      await page.keyboard.press('Escape');
    });
    await check('course-dashboard: the Comments tab shows bob\'s comment under "Feed the starter" (GET /course/{id}/comment/)', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      await page.getByRole('tab', { name: 'Comments' }).first().click();
      await page.getByText('Mine doubled <3').first().waitFor({ timeout: WAIT_MS });
      await page.getByText('Feed the starter').first().waitFor({ timeout: WAIT_MS });
    });
  }, { fullPage: false });

  await visit('course-notes', async () => {
    await check('course-notes: alice\'s notifications page shows bob\'s comment on "Feed the starter" (user_commented_a_course_lesson)', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      const page1 = (await api(alice, 'GET', '/api/v2/notification/')).json;
      const note = page1.results.flatMap((g) => g.aggregated).find((n) => n.type === 'user_commented_a_course_lesson');
      must(note && note.comment.lesson_id === lessons.first && note.course.id === course, `hearth's notification: ${JSON.stringify(note).slice(0, 300)}`);
      const feed = page.locator('.SCNotificationFeed-root, #notifications').first();
      await feed.getByText('Mine doubled <3').first().waitFor({ timeout: WAIT_MS });
      await feed.getByText('Feed the starter').first().waitFor({ timeout: WAIT_MS });
    });
  }, { fullPage: false });

  await visit('course-edit', async () => {
    const bakingLessons = async () => {
      const out = (await api(alice, 'GET', `/api/v2/course/${course}/?view=edit`)).json.sections.find((x) => x.name === 'Baking');
      return out ? out.lessons : [];
    };
    await check('course-edit: alice adds a lesson to Baking with the editor\'s "Lesson" button; hearth holds it as a draft in Baking', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      const row = page.locator('tr', { hasText: 'Baking' }).first();
      await row.waitFor({ timeout: WAIT_MS });
      await row.locator('button', { hasText: 'Lesson' }).first().click();
      const input = page.locator('tr input[type="text"]').first();
      await input.waitFor({ timeout: WAIT_MS });
      await input.fill('Shape the loaf');
      // the kit keeps the name after a 300 ms debounce, in state the page does not show
      await page.waitForTimeout(400);
      const [resp] = await Promise.all([
        page.waitForResponse((r) => /\/section\/\d+\/lesson\/$/.test(new URL(r.url()).pathname) && r.request().method() === 'POST', { timeout: WAIT_MS }),
        page.locator('tr button:has-text("check")').first().click(),
      ]);
      must(resp.status() === 201, `POST lesson answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      await page.getByText('Shape the loaf').first().waitFor({ timeout: WAIT_MS });
      const got = await bakingLessons();
      must(got.length === 1 && got[0].name === 'Shape the loaf' && got[0].status === 'draft', `Baking's lessons: ${JSON.stringify(got).slice(0, 300)}`);
    });
    await check('course-edit: alice publishes it with its status select; hearth answers the PATCH and bob now sees it', async () => {
      must(lessons, 'no lessons (the seed above failed)');
      const row = page.locator('tr', { hasText: 'Shape the loaf' }).first();
      await row.locator('[role="combobox"]').first().click();
      const [resp] = await Promise.all([
        page.waitForResponse((r) => /\/lesson\/\d+\/$/.test(new URL(r.url()).pathname) && r.request().method() === 'PATCH', { timeout: WAIT_MS }),
        page.getByRole('option', { name: 'Published' }).first().click(),
      ]);
      must(resp.status() === 200, `PATCH lesson answered ${resp.status()}`);
      const got = await bakingLessons();
      must(got[0] && got[0].status === 'published', `Baking's lessons: ${JSON.stringify(got).slice(0, 300)}`);
      const seen = (await api(bob, 'GET', `/api/v2/course/${course}/?view=user`)).json;
      must(seen.num_lessons === 3, `bob's course counts ${seen.num_lessons} lessons`);
    });
  }, { fullPage: false });
}
