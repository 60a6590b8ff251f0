// A feed's composer, as the group and event views use it: GroupFeed and EventFeed show
// their InlineComposerWidget as the feed's header only once its virtual scroller has
// mounted (a ref no render follows), so on a freshly loaded page the views mount the
// same widget above the page too (app.jsx: GroupComposer, EventComposer).

// Writes `text` in the feed's own composer when it shows (in the `feedId` section), else
// in the one above the page (the `composerId` section), publishes it, and waits for the
// card in the feed (after the widget above the page, once the page loads again).
// Answers hearth's 201 response, the body the Composer sent and the created item.
export async function publishInFeed({ page, must, WAIT_MS }, { feedId, composerId, text }) {
  const inFeed = page.getByTestId(feedId).locator('.SCInlineComposerWidget-root button').first();
  const above = page.getByTestId(composerId).locator('.SCInlineComposerWidget-root button').first();
  await above.waitFor({ timeout: WAIT_MS }).catch(async (e) => {
    throw new Error(`${e.message}: the composer section holds ${(await page.getByTestId(composerId).innerHTML()).slice(0, 600)}`);
  });
  const editor = page.locator('.SCComposer-root [contenteditable="true"]');
  // (a click while the page still renders may land before the widget listens: again)
  let fromFeed = false;
  for (let i = 0; i < 3 && !(await editor.isVisible()); i++) {
    fromFeed = await inFeed.isVisible();
    await (fromFeed ? inFeed : above).click();
    await editor.waitFor({ timeout: 5000 }).catch(() => {});
  }
  await editor.waitFor({ timeout: WAIT_MS });
  await editor.click();
  await page.keyboard.type(text, { delay: 5 });
  const publish = page.locator('.SCComposer-root button[type="submit"]');
  await page.waitForFunction((b) => !b.disabled, await publish.elementHandle(), { timeout: WAIT_MS });
  const [resp] = await Promise.all([
    page.waitForResponse((r) => /\/api\/v2\/(post|discussion)\/$/.test(r.url()) && r.request().method() === 'POST', { timeout: WAIT_MS }),
    publish.click(),
  ]);
  must(resp.status() === 201, `POST ${new URL(resp.url()).pathname} answered ${resp.status()}: ${(await resp.text()).slice(0, 200)}`);
  const sent = resp.request().postDataJSON();
  const item = await resp.json();
  if (!fromFeed) await page.reload();
  await page.getByTestId(feedId).locator('.SCFeedObject-root').filter({ hasText: text.slice(-25) }).first().waitFor({ timeout: WAIT_MS });
  return { sent, item };
}
