// A feed's composer, as the group and event views use it: GroupFeed and EventFeed show
// their InlineComposerWidget as the feed's header only once its virtual scroller has
// mounted (a ref no render follows), so on a freshly loaded page the views mount the
// same widget above the page too (app.jsx: GroupComposer, EventComposer).

import { pngBytes } from './png.mjs';

// Writes `text` in the feed's own composer when it shows (in the `feedId` section), else
// in the one above the page (the `composerId` section), publishes it, and waits for the
// card in the feed (after the widget above the page, once the page loads again).
// Answers hearth's 201 response, the body the Composer sent and the created item.
// Presses the Composer's Publish once it is enabled; the create's answer must be 201.
// `before(page)` runs once the button is enabled (a screenshot of the Composer).
export async function pressPublish({ page, must, WAIT_MS }, before = async () => {}) {
  const publish = page.locator('.SCComposer-root button[type="submit"]');
  await page.waitForFunction((b) => !b.disabled, await publish.elementHandle(), { timeout: WAIT_MS });
  await before(page);
  const [resp] = await Promise.all([
    page.waitForResponse((r) => /\/api\/v2\/(post|discussion)\/$/.test(r.url()) && r.request().method() === 'POST', { timeout: WAIT_MS }),
    publish.click(),
  ]);
  must(resp.status() === 201, `POST ${new URL(resp.url()).pathname} answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
  return { sent: resp.request().postDataJSON(), item: await resp.json() };
}

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
  const { sent, item } = await pressPublish({ page, must, WAIT_MS });
  if (!fromFeed) await page.reload();
  await page.getByTestId(feedId).locator('.SCFeedObject-root').filter({ hasText: text.slice(-25) }).first().waitFor({ timeout: WAIT_MS });
  return { sent, item };
}

// The Composer's pictures (the `composer-media` view: app.jsx's ComposerPage again): alice
// picks a picture with the Composer's "add media" button (its menu's Gallery: the kit's
// chunked uploader, as EventMediaWidget's in events.mjs, with a PNG made here), writes
// nothing and publishes; the Composer sends the picture's id in `medias`, and hearth shows
// it in the post's `medias` (to another member too) and the kit's card and detail show it.
export async function composerMediaView({ visit, check, api, page, portal, must, USERS, WAIT_MS }) {
  const section = (id) => page.getByTestId(id);
  await visit('composer-media', async () => {
    let media = null;
    let created = null;
    await check("composer-media: alice clicks the Composer's add media button, then Gallery, and picks a PNG: the kit uploads it in chunks (media/upload/chunk/, complete/ 201, a picture under /media/m/) and previews hearth's picture", async () => {
      const composer = page.locator('.SCComposer-root');
      await composer.locator('[contenteditable="true"]').waitFor({ timeout: WAIT_MS });
      await composer.getByRole('button', { name: 'add media' }).click();
      // (the menu's items are all named "upload": aria-label)
      const gallery = page.getByRole('menuitem').filter({ hasText: /^Gallery$/ });
      await gallery.waitFor({ timeout: WAIT_MS });
      const completed = page.waitForResponse((r) => r.url() === `${portal}/api/v2/media/upload/complete/`, { timeout: WAIT_MS });
      const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: WAIT_MS }), gallery.click()]);
      await chooser.setFiles({ name: 'crumb.png', mimeType: 'image/png', buffer: pngBytes(800, 500) });
      const done = await completed;
      must(done.status() === 201, `complete/ answered ${done.status()}: ${(await done.text()).slice(0, 300)}`);
      media = await done.json();
      must(media.type === 'image' && media.image.startsWith(`${portal}/media/m/`) && media.image_width > 0 && media.image_height > 0, `the media: ${JSON.stringify(media)}`);
      await page.waitForFunction((url) => [...document.querySelectorAll('.SCComposer-medias .SCMediaFile-media')].some((e) => getComputedStyle(e).backgroundImage.includes(url)), media.image, { timeout: WAIT_MS });
    });
    await check('composer-media: alice publishes the picture with no text: the Composer sends medias [its id] and an empty text, hearth answers 201 with the picture in the post\'s medias', async () => {
      must(media, 'no picture (the check above failed)');
      const { sent, item: answered } = await pressPublish({ page, must, WAIT_MS });
      must(JSON.stringify(sent.medias) === JSON.stringify([media.id]), `the Composer sent medias ${JSON.stringify(sent.medias)}, want [${media.id}]`);
      must(!(sent.text ?? '').replace(/<[^>]*>/g, '').trim(), `the Composer sent text ${JSON.stringify(sent.text)} (not a post of a picture alone: the view no longer exercises it)`);
      created = answered;
      must(created.type === 'post' && created.medias?.length === 1 && created.medias[0].id === media.id && created.medias[0].image === media.image, `hearth answered ${JSON.stringify(created).slice(0, 400)}`);
      await section('created').getByText(`published post ${created.id}`).waitFor({ timeout: WAIT_MS });
    });
    await check("composer-media: through the API the post's medias hold the picture (GET /post/{id}/ as bob, bob's explore feed): type image, hearth's /media/m/ URL, its size, order 0; the picture itself is an image", async () => {
      must(created, 'nothing was published');
      const got = await api(USERS.bob, 'GET', `/api/v2/post/${created.id}/`);
      must(got.status === 200, `GET /post/${created.id}/ as bob: ${got.status} ${JSON.stringify(got.json).slice(0, 200)}`);
      const [m, ...rest] = got.json.medias ?? [];
      must(m && !rest.length, `medias: ${JSON.stringify(got.json.medias)}`);
      must(m.id === media.id && m.type === 'image' && m.image === media.image && m.url === media.image && m.order === 0, `the post's media: ${JSON.stringify(m)}`);
      must(m.image_width === media.image_width && m.image_height === media.image_height, `the post's media is ${m.image_width}×${m.image_height}, the upload ${media.image_width}×${media.image_height}`);
      must(got.json.summary === '', `summary ${JSON.stringify(got.json.summary)}`);
      const feed = (await api(USERS.bob, 'GET', '/api/v2/feed/explore/?limit=10')).json;
      const item = feed.results.find((u) => u.type === 'post' && u.post?.id === created.id);
      must(item?.post.medias?.[0]?.image === media.image, `bob's explore feed: ${JSON.stringify(item ?? feed.results.map((u) => `${u.type} ${u[u.type]?.id}`))}`.slice(0, 400));
      const picture = await fetch(media.image);
      must(picture.ok && picture.headers.get('content-type').startsWith('image/'), `the picture: ${picture.status} ${picture.headers.get('content-type')}`);
    });
    for (const [id, what] of [['created-preview', 'feed card'], ['created-detail', 'detail']]) {
      await check(`composer-media: the published post as a ${what} (FeedObject, read back from hearth) shows hearth's picture, which the browser loads`, async () => {
        must(created, 'nothing was published');
        const shown = await page.waitForFunction(
          ([sel, url]) => [...document.querySelectorAll(`${sel} .SCMediaFile-display-root *`)].some((e) => getComputedStyle(e).backgroundImage.includes(url) || e.currentSrc === url),
          [`[data-testid="${id}"]`, media.image],
          { timeout: WAIT_MS },
        ).catch(async () => null);
        must(shown, `no picture at ${media.image} in ${id}: ${(await section(id).innerHTML()).slice(0, 500)}`);
        const width = await page.evaluate((url) => new Promise((resolve) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => resolve(0);
          img.src = url;
        }), media.image);
        must(width === media.image_width, `the browser decodes ${media.image} ${width} pixels wide, hearth says ${media.image_width}`);
      });
    }
  });
}

// The Composer's links (the `composer-link` view: ComposerPage again): alice clicks the
// Composer's add link button, types a URL in its layer's "Link URL" field and clicks OK
// (the kit's UrlTextField: POST /api/v2/media/ {type: url, url}); the layer and then the
// Composer preview hearth's card; she writes a line and publishes. hearth fetches nothing
// a member names (docs/decisions.md): the card is the site's name over a link to the URL.
// Clicking the card's link fires the kit's click tracker (POST /api/v2/media/{id}/click/)
// and opens the URL in a new tab, which a route of this page's browser answers: nothing
// leaves the machine, and the page stays where it was.
export async function composerLinkView({ visit, check, api, page, portal, must, USERS, WAIT_MS }) {
  const section = (id) => page.getByTestId(id);
  const URL_TYPED = 'https://bakery.example/rye';
  const HOST = 'bakery.example';
  const TEXT = 'The rye I bake on Sundays';
  await visit('composer-link', async () => {
    let media = null;
    let created = null;
    await check(`composer-link: alice clicks the Composer's add link button, types ${URL_TYPED} in "Link URL" and clicks OK: POST /api/v2/media/ {type url} 201, a link card of ${HOST} (embed sc_link, nothing fetched); the layer previews it and Done puts it in the Composer`, async () => {
      const composer = page.locator('.SCComposer-root');
      await composer.locator('[contenteditable="true"]').waitFor({ timeout: WAIT_MS });
      await composer.getByRole('button', { name: 'add link' }).click();
      const layer = page.locator('.SCMediaLink-layer-root');
      const field = layer.getByLabel('Link URL');
      await field.waitFor({ timeout: WAIT_MS });
      await field.click();
      await page.keyboard.type(URL_TYPED, { delay: 5 });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/media/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        layer.getByRole('button', { name: 'OK', exact: true }).click(),
      ]);
      must(resp.status() === 201, `POST /api/v2/media/ answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      const sent = resp.request().postDataJSON();
      must(sent.type === 'url' && sent.url === URL_TYPED, `the kit sent ${JSON.stringify(sent)}`);
      media = await resp.json();
      const meta = media.embed?.metadata ?? {};
      must(media.type === 'url' && media.url === URL_TYPED && media.title === HOST && media.image == null, `the media: ${JSON.stringify(media)}`);
      must(media.embed.embed_type === 'sc_link' && meta.url === URL_TYPED && meta.title === HOST && meta.description === '' && meta.images?.length === 0 && meta.type === 'link', `its embed: ${JSON.stringify(media.embed)}`);
      await layer.locator('.SCMediaLink-preview-root .SCMediaLink-snippet-title').filter({ hasText: HOST }).waitFor({ timeout: WAIT_MS });
      await layer.getByRole('button', { name: 'Done', exact: true }).click();
      await layer.waitFor({ state: 'detached', timeout: WAIT_MS });
      const inComposer = composer.locator('.SCComposer-medias .SCMediaLink-display-root a');
      await inComposer.waitFor({ timeout: WAIT_MS });
      must((await inComposer.getAttribute('href')) === URL_TYPED, `the Composer's preview links to ${await inComposer.getAttribute('href')}`);
    });
    await check(`composer-link: alice writes "${TEXT}" and publishes: the Composer sends medias [the link's id], hearth answers 201 with the link in the post's medias`, async () => {
      must(media, 'no link (the check above failed)');
      const editor = page.locator('.SCComposer-root [contenteditable="true"]');
      await editor.click();
      await page.keyboard.type(TEXT, { delay: 5 });
      const { sent, item: answered } = await pressPublish({ page, must, WAIT_MS });
      must(JSON.stringify(sent.medias) === JSON.stringify([media.id]), `the Composer sent medias ${JSON.stringify(sent.medias)}, want [${media.id}]`);
      created = answered;
      must(created.type === 'post' && created.medias?.length === 1 && created.medias[0].id === media.id && created.medias[0].url === URL_TYPED, `hearth answered ${JSON.stringify(created).slice(0, 400)}`);
      await section('created').getByText(`published post ${created.id}`).waitFor({ timeout: WAIT_MS });
    });
    await check(`composer-link: through the API (GET /post/{id}/ as bob) the post's medias hold one url media: ${URL_TYPED}, title ${HOST}, the sc_link embed; its text is alice's line`, async () => {
      must(created, 'nothing was published');
      const got = await api(USERS.bob, 'GET', `/api/v2/post/${created.id}/`);
      must(got.status === 200, `GET /post/${created.id}/ as bob: ${got.status} ${JSON.stringify(got.json).slice(0, 200)}`);
      const [m, ...rest] = got.json.medias ?? [];
      must(m && !rest.length, `medias: ${JSON.stringify(got.json.medias)}`);
      must(m.id === media.id && m.type === 'url' && m.url === URL_TYPED && m.title === HOST, `the post's media: ${JSON.stringify(m)}`);
      must(m.embed?.embed_type === 'sc_link' && m.embed.metadata?.url === URL_TYPED && m.embed.metadata.title === HOST, `its embed: ${JSON.stringify(m.embed)}`);
      must(got.json.summary === TEXT, `summary ${JSON.stringify(got.json.summary)}`);
    });
    for (const [id, what] of [['created-preview', 'feed card'], ['created-detail', 'detail']]) {
      await check(`composer-link: the published post as a ${what} (FeedObject, read back from hearth) shows the link card: ${HOST} as its title and a link to ${URL_TYPED} (a new tab) reading ${HOST}`, async () => {
        must(created, 'nothing was published');
        const card = section(id).locator('.SCFeedObject-root .SCMediaLink-display-root').first();
        await card.waitFor({ timeout: WAIT_MS }).catch(async () => {
          throw new Error(`no link card in ${id}: ${(await section(id).innerHTML()).slice(0, 500)}`);
        });
        const title = (await card.locator('.SCMediaLink-snippet-title').innerText()).trim();
        must(title === HOST, `the card's title reads ${JSON.stringify(title)}`);
        const link = card.locator('a');
        must((await link.count()) === 1, `${await link.count()} links in the card`);
        const [href, target, text] = [await link.getAttribute('href'), await link.getAttribute('target'), (await link.innerText()).trim()];
        must(href === URL_TYPED && target === '_blank' && text === HOST, `the card's link: href ${href}, target ${target}, text ${JSON.stringify(text)}`);
        const words = (await section(id).locator('.SCFeedObject-text').first().innerText()).trim();
        must(words.startsWith(TEXT), `the card's text reads ${JSON.stringify(words)}`);
      });
    }
    await check(`composer-link: clicking the card's link fires the kit's click tracker (POST /api/v2/media/{id}/click/ 204) and opens ${URL_TYPED} in a new tab (answered here by the browser's route, never fetched); the page stays`, async () => {
      must(created, 'nothing was published');
      const context = page.context();
      const opened = [];
      const external = (route) => {
        opened.push(route.request().url());
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>the bakery (a stand-in)</title><p>not fetched</p>' });
      };
      await context.route(`https://${HOST}/**`, external);
      try {
        const link = section('created-preview').locator('.SCMediaLink-display-root a').first();
        const [clicked, popup] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${portal}/api/v2/media/${media.id}/click/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
          page.waitForEvent('popup', { timeout: WAIT_MS }),
          link.click(),
        ]);
        must(clicked.status() === 204, `the click tracker answered ${clicked.status()}: ${(await clicked.text()).slice(0, 200)}`);
        await popup.waitForLoadState('domcontentloaded').catch(() => {});
        const at = popup.url();
        await popup.close();
        must(at === URL_TYPED, `the new tab opened ${at}`);
        must(opened.length > 0 && opened.every((u) => u.startsWith(`https://${HOST}/`)), `the browser asked ${JSON.stringify(opened)}`);
      } finally {
        await context.unroute(`https://${HOST}/**`, external);
      }
    });
  });
}
