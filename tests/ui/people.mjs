// The people views of the UI suite (issue 32), run by run.mjs after every other view (they
// turn connections on and follows off for the whole community, which the views before
// them must not see). `t` holds run.mjs's helpers and state.
//
// An avatar: erin opens the kit's Change Profile Image dialog on her profile header and
// uploads a PNG; hearth keeps a 400-pixel square of it, and the header shows it. Then a
// wide cover through the header's ChangeCover: a whole picture, at most 1280 px a side.
//
// Data portability: basil asks for his data with the kit's AccountDataPortability, waits
// for it, downloads the zip, which holds his posts and not others'.
//
// Legal pages: staff add the terms and the privacy policy (`hearth legal add`, the terms
// with a payload the sanitizer must drop); dave's page asks him with ConsentSolution,
// he accepts both, and hearth holds his answers.
//
// Usernames pasted: carol pastes names into the kit's UserAutocomplete (the composer's
// audience picker), which resolves them with POST /api/v2/user/match/.
//
// Moderation: carol flags a post of bob's as spam with the card's menu; it reaches the
// staff queue; moira (staff) deletes it for spam with the same menu; bob's notifications
// page tells him why.
//
// Connections between two browsers: erin asks basil with the friendship button on his
// card; basil, on his own page, sees the request in UserConnectionsRequestsWidget and
// accepts it, while erin's page (a second browser context) stays open and turns from
// "Cancel" to "Remove" through the live socket; then both users' UserConnectionsWidget
// list each other. Every step is confirmed through hearth's API.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

// The names of a zip's files, and one file's text (its central directory, then the
// entry: stored or deflated): enough to read what the kit saved.
function zipEntries(buf) {
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const out = [];
  for (let i = 0; i < count; i++) {
    const [method, size, nameLen, extraLen, commentLen, local] = [buf.readUInt16LE(at + 10), buf.readUInt32LE(at + 20), buf.readUInt16LE(at + 28), buf.readUInt16LE(at + 30), buf.readUInt16LE(at + 32), buf.readUInt32LE(at + 42)];
    out.push({ name: buf.toString('utf8', at + 46, at + 46 + nameLen), method, size, local });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}
const zipNames = (buf) => zipEntries(buf).map((e) => e.name);
function zipText(buf, name) {
  const e = zipEntries(buf).find((x) => x.name === name);
  if (!e) return '';
  const start = e.local + 30 + buf.readUInt16LE(e.local + 26) + buf.readUInt16LE(e.local + 28);
  const data = buf.subarray(start, start + e.size);
  return (e.method === 8 ? zlib.inflateRawSync(data) : data).toString('utf8');
}

// A w×h RGB PNG (a gradient), made here: what a member picks in the file dialog.
function png(w, h) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + 3 * w);
    for (let x = 0; x < w; x++) row.set([(x * 4) % 256, (y * 4) % 256, 160], 1 + 3 * x);
    rows.push(row);
  }
  const sig = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

export async function peopleViews(t) {
  const { visit, check, api, hearth, page, browser, pageOrigin, portal, initScript, requests, pageErrors, must, USERS, WAIT_MS, OUT, shots, token, viewTokens, setIds } = t;
  const { erin, basil } = USERS;
  const button = (pg, section) => pg.getByTestId(section).locator('.SCFriendshipButton-root, button').filter({ hasText: /^(Connect|Cancel|Accept|Remove)$/ }).first();
  const statusOf = async (who, whom) => (await api(who, 'GET', `/api/v2/user/${whom}/connection_status/`)).json?.connection_status;

  await visit('avatar', async () => {
    await check("avatar: erin opens Change Profile Image on her profile header and uploads a PNG: hearth answers 201 with a primary 400×400 avatar under /media/, /user/me/ shows it, and so does the header", async () => {
      await page.locator('.SCUserProfileHeader-change-picture').first().click();
      await page.getByText('Upload new image').waitFor({ timeout: WAIT_MS });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/user/avatar/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        page.locator('input[type=file]').setInputFiles({ name: 'erin.png', mimeType: 'image/png', buffer: png(120, 80) }),
      ]);
      must(resp.status() === 201, `POST /user/avatar/ answered ${resp.status()}`);
      const made = await resp.json();
      must(made.primary && made.avatar.startsWith(`${portal}/media/avatar/${erin}/`), `the avatar: ${JSON.stringify(made)}`);
      const me = (await api(erin, 'GET', '/api/v2/user/me/')).json;
      must(me.avatar === made.avatar, `/user/me/ avatar ${me.avatar}`);
      await page.keyboard.press('Escape');
      const img = page.locator('.SCUserProfileHeader-avatar img').first();
      await page.waitForFunction((url) => [...document.querySelectorAll('.SCUserProfileHeader-avatar img')].some((i) => i.src === url && i.complete && i.naturalWidth === 400), made.avatar, { timeout: WAIT_MS });
      must((await img.getAttribute('src')) === made.avatar, `the header shows ${await img.getAttribute('src')}`);
    });
    await check("avatar: erin uploads a wide cover through the header's ChangeCover: PATCH /user/{id}/ (a form with the picture) 200, the cover under /media/user/{id}/cover/ at most 1280 px wide, /user/me/ and the header show it", async () => {
      await page.locator('.SCChangeCoverButton-root button').first().click();
      const input = page.locator('input[type=file][accept=".gif,.png,.jpg,.jpeg"]');
      await input.waitFor({ state: 'attached', timeout: WAIT_MS });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/user/${erin}/` && r.request().method() === 'PATCH', { timeout: WAIT_MS }),
        input.setInputFiles({ name: 'erin-cover.png', mimeType: 'image/png', buffer: png(1600, 400) }),
      ]);
      must(resp.status() === 200, `PATCH /user/${erin}/ answered ${resp.status()}: ${await resp.text()}`);
      const cover = (await resp.json()).cover;
      must(cover.startsWith(`${portal}/media/user/${erin}/cover/`), `the cover: ${cover}`);
      const me = (await api(erin, 'GET', '/api/v2/user/me/')).json;
      must(me.cover === cover, `/user/me/ cover ${me.cover}`);
      await page.keyboard.press('Escape');
      await page.waitForFunction((url) => [...document.querySelectorAll('.SCUserProfileHeader-cover')].some((e) => e.style.background.includes(url) || e.style.backgroundImage.includes(url)), cover, { timeout: WAIT_MS });
      const size = await page.evaluate(async (url) => { const i = new Image(); i.src = url; await i.decode(); return [i.naturalWidth, i.naturalHeight]; }, cover);
      must(size[0] === 1280 && size[1] === 320, `the cover is ${size}`);
    });
  });

  // --- data portability
  Object.assign(viewTokens, { 'data-export': token(USERS.basil) });
  setIds({});
  await visit('data-export', async () => {
    await check("data-export: basil clicks Create your file, the kit follows hearth's progress until Download file shows; the zip it saves holds README.txt, his profile and his posts (\"Workshop note\"), and no one else's", async () => {
      const area = page.getByTestId('data-export');
      const create = area.locator('button', { hasText: 'Create your file' });
      await create.waitFor({ timeout: WAIT_MS });
      await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=data-export] button')].some((b) => b.disabled), null, { timeout: WAIT_MS }).catch(() => {});
      must(await create.isEnabled(), `the button is disabled: ${await create.evaluate((b) => b.outerHTML.slice(0, 300))}; hearth's state ${JSON.stringify((await api(basil, 'GET', '/api/v2/udp/')).json)}`);
      await create.click();
      // (the buttons' text holds their icons' ligature names too: matched by part)
      const download = area.locator('button', { hasText: 'Download file' });
      // the kit asks hearth every 5 s
      await download.waitFor({ timeout: WAIT_MS + 10000 });
      const [file] = await Promise.all([page.waitForEvent('download', { timeout: WAIT_MS }), download.click()]);
      const zip = fs.readFileSync(await file.path());
      const names = zipNames(zip);
      for (const f of ['README.txt', 'profile.json', 'contributions.json']) must(names.includes(f), `no ${f} in ${names.join(', ')}`);
      const text = zipText(zip, 'contributions.json');
      must(text.includes('Workshop note 30') && !text.includes('Bake log'), `contributions.json: ${text.slice(0, 200)}`);
      const st = (await api(basil, 'GET', '/api/v2/udp/')).json;
      must(st.generated_at && st.downloaded_at, `the state: ${JSON.stringify(st)}`);
    });
  }, { fullPage: false });

  // --- legal pages
  await check('legal: the terms and the privacy policy, added with hearth legal add (the terms carry a script payload)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-legal.'));
    const terms = path.join(dir, 'terms.html');
    fs.writeFileSync(terms, '<h2>Community terms</h2><p>Be kind to each other.</p><img src=x onerror="__xss(\'legal\')"><script>__xss("legal2")</script>');
    const privacy = path.join(dir, 'privacy.html');
    fs.writeFileSync(privacy, '<p>We keep your e-mail address and what you post.</p>');
    hearth('legal', 'add', '--policy', 'tec', '--title', 'Community terms', '--body-file', terms);
    hearth('legal', 'add', '--policy', 'privacy', '--title', 'Privacy policy', '--body-file', privacy);
    fs.rmSync(dir, { recursive: true, force: true });
    Object.assign(viewTokens, { consent: token(USERS.dave) });
    setIds({});
  });
  await visit('consent', async () => {
    await check("consent: dave's ConsentSolution shows the terms (their words, not their script), he switches on his consent, Next, the privacy policy, consent, Close: hearth has both accepted", async () => {
      const dialog = page.locator('.SCConsentSolution-root');
      await dialog.getByText('Be kind to each other.').waitFor({ timeout: WAIT_MS });
      // (the dialog closes at the end: its first page, for the record, once it has
      // slid into place)
      await page.waitForFunction(() => (document.querySelector('.SCConsentSolution-root .MuiDialog-paper')?.getBoundingClientRect().top ?? 999) < 200, null, { timeout: WAIT_MS }).catch(() => {});
      await page.screenshot({ path: path.join(OUT, 'consent-terms.png') });
      shots.push(path.join(OUT, 'consent-terms.png'));
      for (const [title, next] of [['Community terms', 'Next'], ['Privacy policy', 'Close']]) {
        await dialog.getByText(`Accept document ${title}`).waitFor({ timeout: WAIT_MS });
        const [ack] = await Promise.all([
          page.waitForResponse((r) => /\/api\/v2\/legal_page\/\d+\/ack\/$/.test(r.url()) && r.request().method() === 'POST', { timeout: WAIT_MS }),
          dialog.locator('input[name=consent]').click(),
        ]);
        must(ack.status() === 200, `POST ack answered ${ack.status()}`);
        await dialog.locator('button', { hasText: next }).click();
      }
      const acks = (await api(USERS.dave, 'GET', '/api/v2/legal_page/user_acks/')).json;
      must(acks.count === 2 && acks.results.every((a) => a.accepted_at), `dave's answers: ${JSON.stringify(acks)}`);
      const docs = (await api(USERS.dave, 'GET', '/api/v2/legal_page/last_revisions/')).json;
      must(docs.every((d) => d.ack?.accepted_at), `the revisions in force: ${JSON.stringify(docs).slice(0, 300)}`);
    });
  }, { fullPage: false });

  // --- usernames pasted into the kit's UserAutocomplete (the composer's audience)
  Object.assign(viewTokens, { match: token(USERS.carol) });
  setIds({});
  await visit('match', async () => {
    await check("match: carol pastes \"BARBARA, basil nobody\" into UserAutocomplete's box: the kit posts the three names to /user/match/, hearth answers barbara and basil, and the chips and the box show exactly them", async () => {
      const area = page.getByTestId('match');
      const box = area.locator('textarea:not([aria-hidden="true"])');
      await box.waitFor({ timeout: WAIT_MS });
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/user/match/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        box.fill('BARBARA, basil nobody'),
      ]);
      must(resp.status() === 200, `POST /user/match/ answered ${resp.status()}`);
      const sent = JSON.stringify(resp.request().postDataJSON());
      must(sent === JSON.stringify(['BARBARA', 'basil', 'nobody']), `the kit sent ${sent}`);
      const got = (await resp.json()).map((u) => u.username).join();
      must(got === 'barbara,basil', `hearth answered ${got}`);
      await area.locator('.MuiChip-label', { hasText: 'basil' }).waitFor({ timeout: WAIT_MS });
      const chips = (await area.locator('.MuiChip-label').allTextContents()).join();
      must(chips === 'barbara,basil', `the chips: ${chips}`);
      must((await box.inputValue()) === 'barbara\nbasil', `the box: ${JSON.stringify(await box.inputValue())}`);
    });
  }, { fullPage: false });

  // --- moderation
  let spamPost = null;
  let moira = null;
  await check("moderation: bob's post to flag, and moira, a staff member (hearth user create --staff)", async () => {
    const r = await api(USERS.bob, 'POST', '/api/v2/post/', { text: '<p class="SCEditor-paragraph">Cheap watches, click the link in my profile!</p>' });
    must(r.status === 201, `bob's post: ${r.status}`);
    spamPost = r.json.id;
    moira = JSON.parse(hearth('user', 'create', '--username', 'moira', '--email', 'moira@example.org', '--real-name', 'Moira Stone', '--staff', '--no-password', '--json')).id;
    Object.assign(viewTokens, { flag: token(USERS.carol), moderate: token(moira), moderated: token(USERS.bob) });
    setIds({ spamPost });
  });
  const openMenu = async () => {
    await page.getByText('Cheap watches', { exact: false }).first().waitFor({ timeout: WAIT_MS });
    await page.locator('.SCContributionActionsMenu-button').first().click();
  };
  const pickReason = async (section, reason) => {
    await page.getByText(section, { exact: true }).click();
    await page.getByText(reason, { exact: true }).click();
  };
  await visit('flag', async () => {
    await check("flag: carol follows the post with the card's bookmark button: hearth answers 204, the post is followed (follower_count 1) and the button turns", async () => {
      await page.getByText('Cheap watches', { exact: false }).first().waitFor({ timeout: WAIT_MS });
      const mark = page.locator('.SCFeedObject-root button').filter({ hasText: /^bookmark_border$/ }).first();
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/post/${spamPost}/follow/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        mark.click(),
      ]);
      must(resp.status() === 204, `POST follow answered ${resp.status()}`);
      const post = await api(USERS.carol, 'GET', `/api/v2/post/${spamPost}/`);
      must(post.json?.followed === true && post.json.follower_count === 1, `followed ${post.json?.followed}, follower_count ${post.json?.follower_count}`);
      await page.locator('.SCFeedObject-root button').filter({ hasText: /^bookmark_added$/ }).first().waitFor({ timeout: WAIT_MS });
    });
    await check("flag: carol opens the menu of bob's post, Flag with motivation, Spam: hearth holds her flag (flag/status 0) and the post tops moira's staff queue", async () => {
      must(spamPost, 'no post (the seed above failed)');
      await openMenu();
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/post/${spamPost}/flag/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        pickReason('Flag with motivation', 'Spam'),
      ]);
      must(resp.status() === 204, `POST flag answered ${resp.status()}`);
      const st = await api(USERS.carol, 'GET', `/api/v2/post/${spamPost}/flag/status/`);
      must(st.json?.flag_type === 0, `carol's flag: ${JSON.stringify(st.json)}`);
      const q = await api(moira, 'GET', '/api/v2/moderation/contribution/');
      must(q.status === 200 && q.json.results[0]?.contribution?.id === spamPost && q.json.results[0].moderation_status === 'open', `the queue: ${JSON.stringify(q.json).slice(0, 300)}`);
    });
    await check("flag: carol stops the post's notifications from the same menu: hearth answers 204 and the post is suspended for her", async () => {
      await page.keyboard.press('Escape');
      await openMenu();
      const item = page.getByRole('menuitem').filter({ hasText: 'notifications_off' }).first();
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/post/${spamPost}/suspend/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        item.locator('.MuiListItemText-root').click(),
      ]);
      must(resp.status() === 204, `POST suspend answered ${resp.status()}`);
      const st = await api(USERS.carol, 'GET', `/api/v2/post/${spamPost}/suspended/`);
      must(st.json?.suspended === true, `suspended: ${JSON.stringify(st.json)}`);
      const post = await api(USERS.carol, 'GET', `/api/v2/post/${spamPost}/`);
      must(post.json?.suspended === true, `the post's suspended: ${post.json?.suspended}`);
    });
  }, { fullPage: false });
  await visit('moderate', async () => {
    await check("moderate: moira opens the same menu, Delete with motivation, Spam, Yes: hearth deletes the post for spam (moderation status deleted, 404 for members)", async () => {
      await openMenu();
      await pickReason('Delete with motivation', 'Spam');
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/moderation/contribution/${spamPost}/` && r.request().method() === 'PATCH', { timeout: WAIT_MS }),
        page.getByRole('button', { name: 'Yes' }).click(),
      ]);
      must(resp.status() === 200, `PATCH moderation answered ${resp.status()}`);
      const st = await api(moira, 'GET', `/api/v2/moderation/contribution/${spamPost}/status/?contribution_type=post`);
      must(st.json?.status === 'deleted' && st.json.flag_type === 0, `the state: ${JSON.stringify(st.json)}`);
      const seen = await api(USERS.carol, 'GET', `/api/v2/post/${spamPost}/`);
      must(seen.status === 404, `carol reads the post: ${seen.status}`);
    });
  }, { fullPage: false });
  await visit('moderated', async () => {
    await check("moderated: bob's NotificationFeed shows why his post was removed (deleted_for_advertising, the post under it)", async () => {
      await page.locator('#notifications').getByText('has been removed', { exact: false }).first().waitFor({ timeout: WAIT_MS });
      const n = await api(USERS.bob, 'GET', '/api/v2/notification/?limit=5');
      const note = n.json.results.flatMap((g) => g.aggregated).find((x) => x.type === 'deleted_for_advertising');
      must(note?.post?.id === spamPost, `bob's notifications: ${JSON.stringify(n.json).slice(0, 300)}`);
    });
  }, { fullPage: false });

  await check('people: connections on, follows off (hearth pref set configurations.connection_enabled true, follow_enabled false)', async () => {
    hearth('pref', 'set', 'configurations.connection_enabled', 'true');
    hearth('pref', 'set', 'configurations.follow_enabled', 'false');
    for (const [key, want] of [['configurations.connection_enabled', true], ['configurations.follow_enabled', false]]) {
      const got = JSON.parse(hearth('pref', 'get', key, '--json')).value;
      must(got === want, `${key} is ${got}`);
    }
  });

  await visit('connect-request', async () => {
    await check("connect-request: basil's card shows the friendship button, Connect; erin clicks it: it turns to Cancel, and hearth holds her request (basil: received_connection_request, 1 request received)", async () => {
      const b = button(page, 'connect-card');
      await b.waitFor({ timeout: WAIT_MS });
      must((await b.innerText()).trim() === 'Connect', `the button says ${JSON.stringify(await b.innerText())}`);
      await b.click();
      await page.getByTestId('connect-card').getByText('Cancel', { exact: true }).waitFor({ timeout: WAIT_MS });
      must((await statusOf(basil, erin)) === 'received_connection_request', `basil's status towards erin: ${await statusOf(basil, erin)}`);
      const me = await api(basil, 'GET', '/api/v2/user/me/');
      must(me.json.connection_requests_received_counter === 1, `basil's received counter ${me.json.connection_requests_received_counter}`);
    });
  }, { fullPage: false });

  await visit('connect-accept', async () => {
    // erin's page, open in a second context of the same browser while basil answers
    const ctx2 = await browser.newContext({ viewport: { width: 1280, height: 400 } });
    const page2 = await ctx2.newPage();
    await page2.addInitScript(initScript);
    page2.on('pageerror', (e) => pageErrors.push({ view: 'connect-accept', message: `connect-watch: ${e.message}` }));
    page2.on('response', (r) => {
      if (r.url().startsWith(portal)) requests.push({ view: 'connect-accept', method: r.request().method(), path: `(connect-watch) ${new URL(r.url()).pathname}`, status: r.status() });
    });
    try {
      await page2.goto(`${pageOrigin}/?view=connect-watch`);
      await check("connect-accept: basil's requests widget lists erin's request (\"1 connection request\") with Accept; erin's page shows Cancel", async () => {
        await page.getByTestId('connect-requests').getByText('1 connection request').waitFor({ timeout: WAIT_MS });
        await page.getByTestId('connect-requests').getByText('erin', { exact: false }).first().waitFor({ timeout: WAIT_MS });
        const b = button(page, 'connect-requests');
        await b.waitFor({ timeout: WAIT_MS });
        must((await b.innerText()).trim() === 'Accept', `basil's button says ${JSON.stringify(await b.innerText())}`);
        await page2.getByTestId('connect-card').getByText('Cancel', { exact: true }).waitFor({ timeout: WAIT_MS });
        await page2.waitForFunction(() => window.__sockets.some((s) => s.opened && !s.closed), null, { timeout: WAIT_MS });
      });
      await check("connect-accept: basil clicks Accept: his button turns to Remove, hearth connects them (both connected, 1 connection each, no request left), and erin's open page turns to Remove through the live socket, without a reload", async () => {
        await button(page, 'connect-requests').click();
        await page.getByTestId('connect-requests').getByText('Remove', { exact: true }).waitFor({ timeout: WAIT_MS });
        must((await statusOf(erin, basil)) === 'connected' && (await statusOf(basil, erin)) === 'connected', 'not connected both ways');
        for (const who of [erin, basil]) {
          const me = (await api(who, 'GET', '/api/v2/user/me/')).json;
          must(me.connections_counter === 1 && me.connection_requests_received_counter === 0 && me.connection_requests_sent_counter === 0, `counters of ${me.username}: ${me.connections_counter}, ${me.connection_requests_sent_counter}, ${me.connection_requests_received_counter}`);
        }
        await page2.getByTestId('connect-card').getByText('Remove', { exact: true }).waitFor({ timeout: WAIT_MS });
        const pushed = (await page2.evaluate(() => window.__sockets)).flatMap((s) => s.messages.map((m) => m.data)).filter((d) => d.startsWith('{')).map((d) => JSON.parse(d));
        must(pushed.some((m) => m.data?.activity_type === 56 && m.data?.accept_user?.username === 'basil'), `erin's pushes: ${JSON.stringify(pushed).slice(0, 300)}`);
      });
      await page2.screenshot({ path: path.join(OUT, 'connect-watch.png') });
      shots.push(path.join(OUT, 'connect-watch.png'));
    } finally {
      await ctx2.close();
    }
  }, { fullPage: false });

  await visit('connect-list', async () => {
    await check("connect-list: erin's UserConnectionsWidget shows 1 connection, basil, and basil's shows erin (GET /user/{id}/connections/)", async () => {
      for (const [section, other] of [['connections-erin', 'basil'], ['connections-basil', 'erin']]) {
        await page.getByTestId(section).getByText('1 connection', { exact: true }).waitFor({ timeout: WAIT_MS });
        await page.getByTestId(section).getByText(other, { exact: false }).first().waitFor({ timeout: WAIT_MS });
      }
      const r = await api(erin, 'GET', `/api/v2/user/${erin}/connections/`);
      must(r.json.count === 1 && r.json.results[0].id === basil, `erin's connections: ${JSON.stringify(r.json).slice(0, 200)}`);
    });
  });
}
