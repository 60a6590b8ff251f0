// The polls view of the UI suite (issue 32), run by run.mjs after the account views.
// Polls on (`hearth pref set addons.polls_enabled true`), alice posts "Which flour for
// the Sunday loaf?" with three choices (through the API, as the composer sends it);
// carol's page shows the post with the kit's FeedObject: she votes "Rye" with the
// poll's Vote button, hearth counts it as hers; she votes "Spelt" and her vote moves
// (a single-choice poll); every count is confirmed through the API. Then dave's
// PollSuggestionWidget offers him alice's polls, none of which he answered (carol, who
// answered the first, is not offered it): her three later ones, newest first, then
// "Show All" opens the kit's dialog, which asks for the next page (offset 3) and lists
// the first poll too, whose "See" button leads to its post.

// alice's later polls, in the order she posts them
const LATER = ['Proof overnight?', 'Loaf or rolls?', 'Seeds on top?'];

export async function pollViews(t) {
  const { visit, check, api, hearth, page, portal, must, USERS, WAIT_MS, token, viewTokens, setIds } = t;
  let post = null;
  const choices = () => post.poll.choices;
  const counts = async () => (await api(USERS.carol, 'GET', `/api/v2/post/${post.id}/`)).json.poll.choices.map((c) => [c.vote_count, c.voted]);

  await check('polls: on (hearth pref set addons.polls_enabled true); alice posts a poll of three choices, then three polls of two', async () => {
    hearth('pref', 'set', 'addons.polls_enabled', 'true');
    const poll = { title: 'Which flour for the Sunday loaf?', multiple_choices: false, expiration_at: null, choices: [{ choice: 'Rye' }, { choice: 'Spelt' }, { choice: 'Wheat' }] };
    const r = await api(USERS.alice, 'POST', '/api/v2/post/', { text: '<p class="SCEditor-paragraph">Help me choose</p>', poll });
    must(r.status === 201 && r.json.poll?.choices?.length === 3, `the post: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    post = r.json;
    for (const title of LATER) {
      const later = { title, multiple_choices: false, expiration_at: null, choices: [{ choice: 'Yes' }, { choice: 'No' }] };
      const l = await api(USERS.alice, 'POST', '/api/v2/post/', { text: '<p class="SCEditor-paragraph">Your call</p>', poll: later });
      must(l.status === 201, `the post of ${title}: ${l.status} ${JSON.stringify(l.json).slice(0, 300)}`);
    }
    Object.assign(viewTokens, { poll: token(USERS.carol), 'poll-suggest': token(USERS.dave) });
    setIds({ pollPost: post.id });
  });
  await visit('poll', async () => {
    await check("poll: carol's FeedObject shows alice's poll and its three choices; she clicks Vote on Rye: hearth answers 204 and counts her vote (1, hers); Vote on Spelt moves it (0, 1)", async () => {
      must(post, 'no post (the seed above failed)');
      await page.getByText('Which flour for the Sunday loaf?').first().waitFor({ timeout: WAIT_MS }).catch(async () => {
        await page.locator('button', { hasText: 'View Poll' }).first().click();
        await page.getByText('Which flour for the Sunday loaf?').first().waitFor({ timeout: WAIT_MS });
      });
      const voteFor = async (label, choice) => {
        const row = page.locator('[class*="poll-object-choices-root"]').filter({ hasText: label }).first();
        const [resp] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${portal}/api/v2/post/${post.id}/poll/vote/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
          row.locator('button').first().click(),
        ]);
        must(resp.status() === 204, `the vote for ${label} answered ${resp.status()}`);
        must(JSON.parse(resp.request().postData()).choice === choice.id, `the kit sent ${resp.request().postData()}`);
      };
      await voteFor('Rye', choices()[0]);
      let c = await counts();
      must(JSON.stringify(c) === JSON.stringify([[1, true], [0, false], [0, false]]), `after Rye: ${JSON.stringify(c)}`);
      await page.waitForFunction(() => document.body.innerText.includes('1 voter'), null, { timeout: WAIT_MS });
      await voteFor('Spelt', choices()[1]);
      c = await counts();
      must(JSON.stringify(c) === JSON.stringify([[0, false], [1, true], [0, false]]), `after Spelt: ${JSON.stringify(c)}`);
      const alice = (await api(USERS.alice, 'GET', `/api/v2/post/${post.id}/`)).json.poll.choices.map((x) => x.voted);
      must(alice.every((v) => v === false), `alice's view marks carol's vote as hers: ${alice}`);
    });
  }, { fullPage: false });
  await visit('poll-suggest', async () => {
    await check("poll-suggest: dave's PollSuggestionWidget lists alice's three newest polls, newest first, with her name; carol, who voted in the first, is not offered it", async () => {
      must(post, 'no post (the seed above failed)');
      const offered = (await api(USERS.dave, 'GET', '/api/v2/suggestion/poll/')).json;
      must(offered.results?.some((i) => i.id === post.id), `dave's suggestions: ${JSON.stringify(offered).slice(0, 300)}`);
      const carols = (await api(USERS.carol, 'GET', '/api/v2/suggestion/poll/')).json;
      must(!carols.results.some((i) => i.id === post.id), `carol voted, yet is offered: ${JSON.stringify(carols).slice(0, 300)}`);
      const root = page.locator('[class*="SCPollSuggestionWidget-root"]');
      await root.getByText(LATER[2]).first().waitFor({ timeout: WAIT_MS });
      const titles = await root.locator('[class*="SCPollSuggestionWidget-title"]').allInnerTexts();
      must(JSON.stringify(titles.slice(1)) === JSON.stringify([...LATER].reverse()), `the widget lists ${JSON.stringify(titles)}`);
      must(await root.getByText('alice').count() === 3, 'the snippets do not name alice');
    });
    await check('poll-suggest: "Show All" opens the dialog, which asks for the next page (offset 3) and lists the first poll too; its See leads to the post', async () => {
      const root = page.locator('[class*="SCPollSuggestionWidget-root"]');
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url().startsWith(`${portal}/api/v2/suggestion/poll/`) && r.url().includes('offset=3'), { timeout: WAIT_MS }),
        root.getByRole('button', { name: 'Show All' }).click(),
      ]);
      must(resp.status() === 200, `the next page answered ${resp.status()}`);
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Which flour for the Sunday loaf?').waitFor({ timeout: WAIT_MS });
      const snippet = dialog.locator('[class*="poll-snippet-root"]').filter({ hasText: 'Which flour for the Sunday loaf?' });
      const href = await snippet.locator('a', { hasText: /^see$/i }).first().getAttribute('href');
      must(href && href.includes(String(post.id)), `See leads to ${href}`);
    });
  }, { fullPage: false });
}
