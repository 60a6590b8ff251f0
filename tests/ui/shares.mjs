// The shares views of the UI suite, run by run.mjs last (they turn sharing on for the
// whole community: `hearth pref set addons.share_post_enabled true`, after which every
// feed card shows a Share action). `t` holds run.mjs's helpers and state.
//
// barbara posts (through the API, as the Composer sends it). On bob's page her post is a
// FeedObject: he clicks the card's Share action and "Share now" in its menu; the kit makes
// a share media (POST /api/v2/media/ {type: share, shared_object: her post's id}) and
// opens a Composer holding it, where he writes a line and publishes. hearth holds his post
// with the one share media naming hers, counts it in her post's share_count and lists him
// in its shares_users. On carol's page, his post's card shows barbara's post inside it
// (the kit's FeedObject SHARE template), and barbara's own card says "1 Share", which
// opens the kit's SharesDialog naming bob.

import path from 'node:path';
import { pressPublish } from './compose.mjs';

export async function shareViews(t) {
  const { visit, check, api, hearth, page, portal, must, USERS, WAIT_MS, OUT, shots, token, viewTokens, setIds } = t;
  const { barbara, bob, carol } = USERS;
  const ORIGINAL = 'Rye starter, day 3: it doubled overnight and smells of apples';
  const LINE = 'Worth a read before Sunday';
  let original = null;
  let media = null;
  let sharing = null;

  await check('shares: on (hearth pref set addons.share_post_enabled true); barbara posts a line (through the API), nobody shares it yet', async () => {
    hearth('pref', 'set', 'addons.share_post_enabled', 'true');
    must(JSON.parse(hearth('pref', 'get', 'addons.share_post_enabled', '--json')).value === true, 'the preference is not on');
    const r = await api(barbara, 'POST', '/api/v2/post/', { text: `<p class="SCEditor-paragraph">${ORIGINAL}</p>` });
    must(r.status === 201, `the post: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    original = r.json;
    must(original.share_count === 0, `share_count ${original.share_count}`);
    Object.assign(viewTokens, { share: token(bob), 'share-shown': token(carol) });
    setIds({ sharedPost: original.id });
  });

  await visit('share', async () => {
    await check("share: bob clicks the Share action of barbara's card (\"0 Shares\"), then \"Share now\": the kit sends POST /api/v2/media/ {type share, shared_object: her post's id}, hearth answers 201 with a share (embed sc_shared_object {id, type post}), and a Composer opens holding her post", async () => {
      must(original, 'no post (the seed above failed)');
      const card = page.getByTestId('shared-post').locator('.SCFeedObject-root').first();
      await card.getByText(ORIGINAL).first().waitFor({ timeout: WAIT_MS });
      await card.getByRole('button', { name: '0 Shares', exact: true }).waitFor({ timeout: WAIT_MS });
      await card.locator('.SCFeedObject-action-share-button').click();
      const shareNow = page.getByRole('menuitem').filter({ hasText: 'Share now' });
      await shareNow.waitFor({ timeout: WAIT_MS });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/media/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        shareNow.click(),
      ]);
      must(resp.status() === 201, `POST /api/v2/media/ answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      const sent = resp.request().postDataJSON();
      must(sent.type === 'share' && sent.shared_object === original.id, `the kit sent ${JSON.stringify(sent)}`);
      media = await resp.json();
      must(media.type === 'share' && media.embed?.embed_type === 'sc_shared_object', `the media: ${JSON.stringify(media)}`);
      must(JSON.stringify(media.embed.metadata) === JSON.stringify({ id: original.id, type: 'post' }), `its metadata: ${JSON.stringify(media.embed.metadata)}`);
      const composer = page.locator('.SCComposer-root');
      await composer.locator('.SCMediaShare-share-preview .SCFeedObject-share').getByText(ORIGINAL).first().waitFor({ timeout: WAIT_MS });
      // (a share comes alone: the Composer disables its link button beside one; its add
      // media button stays enabled, since react-ui's File TriggerButton sets its own
      // `disabled` over the Composer's, and hearth refuses a picture beside a share: 400)
      must(await composer.getByRole('button', { name: 'add link' }).isDisabled(), "the Composer's add link button is enabled beside a share");
    });
    await check(`share: bob writes "${LINE}" and publishes: the Composer sends medias [the share's id], hearth answers 201 (POST /api/v2/post/); the Composer closes and barbara's card reads "1 Share"`, async () => {
      must(media, 'no share (the check above failed)');
      const editor = page.locator('.SCComposer-root [contenteditable="true"]');
      await editor.waitFor({ timeout: WAIT_MS });
      await editor.click();
      await page.keyboard.type(LINE, { delay: 5 });
      // (the Composer as bob publishes it: his line above barbara's post)
      const { sent, item: answered } = await pressPublish({ page, must, WAIT_MS }, async () => {
        await page.screenshot({ path: path.join(OUT, 'share-composer.png') });
        shots.push(path.join(OUT, 'share-composer.png'));
      });
      must(JSON.stringify(sent.medias) === JSON.stringify([media.id]), `the Composer sent medias ${JSON.stringify(sent.medias)}, want [${media.id}]`);
      sharing = answered;
      must(sharing.type === 'post' && sharing.medias?.length === 1 && sharing.medias[0].id === media.id, `hearth answered ${JSON.stringify(sharing).slice(0, 400)}`);
      await page.locator('.SCComposer-root').waitFor({ state: 'detached', timeout: WAIT_MS });
      await page.getByTestId('shared-post').getByRole('button', { name: '1 Share', exact: true }).waitFor({ timeout: WAIT_MS });
      setIds({ sharingPost: sharing.id });
    });
    await check("share: through the API, bob's post holds one share media naming barbara's post (embed.metadata {id, type post}); her post's share_count is 1 (read by carol) and shares_users lists bob alone", async () => {
      must(sharing, 'nothing was published');
      const got = await api(carol, 'GET', `/api/v2/post/${sharing.id}/`);
      must(got.status === 200, `GET /post/${sharing.id}/ as carol: ${got.status} ${JSON.stringify(got.json).slice(0, 200)}`);
      const [m, ...rest] = got.json.medias ?? [];
      must(m && !rest.length, `medias: ${JSON.stringify(got.json.medias)}`);
      must(m.id === media.id && m.type === 'share' && m.embed?.embed_type === 'sc_shared_object', `the post's media: ${JSON.stringify(m)}`);
      must(JSON.stringify(m.embed.metadata) === JSON.stringify({ id: original.id, type: 'post' }), `its metadata: ${JSON.stringify(m.embed.metadata)}`);
      must(got.json.author?.username === 'bob' && got.json.summary === LINE, `author ${got.json.author?.username}, summary ${JSON.stringify(got.json.summary)}`);
      const shared = await api(carol, 'GET', `/api/v2/post/${original.id}/`);
      must(shared.json.share_count === 1, `barbara's post: share_count ${shared.json.share_count}`);
      const users = await api(carol, 'GET', `/api/v2/post/${original.id}/shares_users/`);
      must(users.status === 200 && users.json.count === 1 && users.json.results?.map((u) => u.username).join() === 'bob', `shares_users: ${users.status} ${JSON.stringify(users.json).slice(0, 300)}`);
    });
  }, { fullPage: false });

  await visit('share-shown', async () => {
    await check("share-shown: on carol's page, bob's post (FeedObject, read back from hearth) shows his line and, inside it, barbara's post as the kit's SHARE template: her name and her text", async () => {
      must(sharing, 'nothing was shared');
      const card = page.getByTestId('sharing-post').locator('.SCFeedObject-root').first();
      await card.getByText(LINE).first().waitFor({ timeout: WAIT_MS });
      const inner = card.locator('.SCMediaShare-share-preview .SCFeedObject-share').first();
      await inner.getByText(ORIGINAL).first().waitFor({ timeout: WAIT_MS }).catch(async () => {
        throw new Error(`no shared post in bob's card: ${(await card.innerHTML()).slice(0, 600)}`);
      });
      // (the SHARE template gives its avatar's link the username class too: empty text)
      const author = (await card.locator('.SCFeedObject-username').first().innerText()).trim();
      const innerAuthors = (await inner.locator('.SCFeedObject-username').allInnerTexts()).map((x) => x.trim()).filter(Boolean);
      must(author === 'bob' && innerAuthors.join() === 'barbara', `the card's author ${JSON.stringify(author)}, the shared post's ${JSON.stringify(innerAuthors)}`);
    });
    await check("share-shown: barbara's card reads \"1 Share\" (hearth's share_count); clicked, the kit's SharesDialog (GET /api/v2/post/{id}/shares_users/ 200) names bob", async () => {
      must(sharing, 'nothing was shared');
      const count = page.getByTestId('shared-post').getByRole('button', { name: '1 Share', exact: true });
      await count.waitFor({ timeout: WAIT_MS });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === `/api/v2/post/${original.id}/shares_users/`, { timeout: WAIT_MS }),
        count.click(),
      ]);
      must(resp.status() === 200, `shares_users answered ${resp.status()}`);
      const dialog = page.getByRole('dialog').filter({ hasText: 'Shares' });
      await dialog.getByText('bob', { exact: true }).first().waitFor({ timeout: WAIT_MS });
      const text = (await dialog.innerText()).replace(/\s+/g, ' ');
      must(!/carol|barbara/.test(text), `the dialog names others: ${JSON.stringify(text)}`);
      // (its fade-in over, for the screenshot)
      await page.waitForFunction(() => [...document.querySelectorAll('.MuiDialog-container')].some((e) => getComputedStyle(e).opacity === '1'), null, { timeout: WAIT_MS });
      await page.screenshot({ path: path.join(OUT, 'share-dialog.png') });
      shots.push(path.join(OUT, 'share-dialog.png'));
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached', timeout: WAIT_MS }).catch(() => {});
      await page.mouse.move(0, 0);
    });
  });
}
