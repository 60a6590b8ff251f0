// The events views of the UI suite (issue 33), run by run.mjs after the groups views.
// Events are turned on for the whole community first (hearth pref set
// configurations.events_enabled true). `t` holds run.mjs's helpers and state.
//
// The kit's EventForm shows its location fields (EventAddress) only when the community
// has a Google geocoding key (providers.google_geocoding_api_key): without one it
// renders none, and the form then submits an event in person with no place (and calls
// `lat.toString()` on null). The suite sets a placeholder key, which only makes the
// form show its tabs; the Google Maps script the kit then asks for is not hearth's and
// does not load here, and the online tab the view uses needs none of it.
//
// alice makes an online event with CreateEventButton and EventForm; bob, on the
// event's page (react-templates Event), answers going with EventSubscribeButton (the
// kit subscribes first, then goes), then posts in the event feed's composer; alice
// adds a photo to the event's gallery with EventMediaWidget (the kit's chunked
// uploader, a PNG made here); the community's Events search and bob's MyEventsWidget
// show the event. Every step is confirmed through hearth's API.

import { publishInFeed } from './compose.mjs';
import { pngBytes } from './png.mjs';

export async function eventsViews(t) {
  const { visit, check, api, hearth, page, portal, must, USERS, WAIT_MS, token, viewTokens, setIds } = t;
  const { alice, bob } = USERS;
  const NAME = 'Sourdough bake-along';
  let event = null;

  await check('events: on (hearth pref set configurations.events_enabled true); /feature/ lists event and tagging', async () => {
    hearth('pref', 'set', 'configurations.events_enabled', 'true');
    hearth('pref', 'set', 'providers.google_geocoding_api_key', 'hearth-ui-suite-placeholder');
    const names = (await api(alice, 'GET', '/api/v2/feature/')).json.results.map((f) => f.name);
    must(names.includes('event') && names.includes('tagging'), `features: ${names.join(', ')}`);
    Object.assign(viewTokens, { 'event-create': token(alice), 'event-rsvp': token(bob), 'event-post': token(bob), 'event-gallery': token(alice), events: token(bob) });
    setIds({});
  });

  await visit('event-create', async () => {
    await check(`event-create: alice clicks Create Event, fills the EventForm (name, the online tab's link) and creates "${NAME}": hearth answers 201 with an online event she administers and goes to`, async () => {
      await page.locator('.SCCreateEventButton-root').first().click();
      const form = page.locator('.SCEventForm-root');
      await form.getByPlaceholder('Event name').waitFor({ timeout: WAIT_MS });
      await form.getByPlaceholder('Event name').fill(NAME);
      await form.getByText('Url link').first().click();
      await form.getByPlaceholder('Enter the event link').fill('https://meet.example/bake-along');
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/event/` && r.request().method() === 'POST', { timeout: WAIT_MS }),
        form.locator('button', { hasText: /^Create Event$/ }).last().click(),
      ]);
      must(resp.status() === 201, `POST /event/ answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      event = (await resp.json()).id;
      const got = (await api(alice, 'GET', `/api/v2/event/${event}/`)).json;
      must(got.name === NAME && got.managed_by.id === alice && got.subscription_status === 'going' && got.location === 'virtual' && got.link === 'https://meet.example/bake-along', `the event: ${JSON.stringify(got).slice(0, 400)}`);
      setIds({ event });
    });
  }, { fullPage: false });

  await visit('event-rsvp', async () => {
    await check("event-rsvp: bob opens the event's page and picks Going in EventSubscribeButton until the kit has sent it (it subscribes first, then goes): hearth has him going, 2 going", async () => {
      must(event, 'no event (the view before failed)');
      await page.getByText(NAME).first().waitFor({ timeout: WAIT_MS });
      const sent = [];
      let status = null;
      // each pick is one request (subscribe/ while the button's copy of the event has
      // no status, then going/); a few tries at most
      for (let i = 0; i < 4 && status !== 'going'; i++) {
        const button = page.locator('button', { hasText: /Would you like to attend\?/ }).first();
        await button.waitFor({ timeout: WAIT_MS });
        await button.click();
        const [resp] = await Promise.all([
          page.waitForResponse((r) => /\/api\/v2\/event\/\d+\/(subscribe|going)\/$/.test(r.url()) && r.request().method() === 'POST', { timeout: WAIT_MS }),
          page.locator('.MuiMenu-root input[value="going"]').click(),
        ]);
        must(resp.status() === 204, `POST ${resp.url()} answered ${resp.status()}`);
        sent.push(new URL(resp.url()).pathname);
        status = (await api(bob, 'GET', `/api/v2/event/${event}/status/`)).json.status;
        must(['subscribed', 'going'].includes(status), `bob's status after ${sent.at(-1)}: ${status}`);
      }
      must(status === 'going', `bob's status after ${sent.join(', ')}: ${status}`);
      await page.locator('button', { hasText: /Going/ }).first().waitFor({ timeout: WAIT_MS });
      const got = (await api(bob, 'GET', `/api/v2/event/${event}/`)).json;
      must(got.subscription_status === 'going' && got.goings_counter === 2 && got.subscribers_counter === 2, `the event as bob sees it: ${JSON.stringify(got).slice(0, 300)}`);
      const going = (await api(bob, 'GET', `/api/v2/event/${event}/going/`)).json;
      must(going.results.map((u) => u.id).includes(bob), `going: ${JSON.stringify(going)}`);
    });
  }, { fullPage: false });

  await visit('event-post', async () => {
    await check("event-post: bob (going) writes in the event feed's composer and publishes: hearth holds a post in the event, the event feed shows it, explore does not", async () => {
      must(event, 'no event');
      await page.getByTestId('event').getByText(NAME).first().waitFor({ timeout: WAIT_MS });
      const { sent, item } = await publishInFeed(t, { feedId: 'event', composerId: 'event-composer', text: 'I will bring rye flour for everyone.' });
      must(sent.event === event, `the Composer sent event ${JSON.stringify(sent.event)}`);
      must(item.event?.id === event, `the post's event: ${JSON.stringify(item.event)}`);
      const feed = (await api(alice, 'GET', `/api/v2/event/${event}/feed/`)).json;
      must(feed.results.some((u) => u[u.type]?.id === item.id), `the event feed: ${JSON.stringify(feed).slice(0, 300)}`);
      const explore = (await api(USERS.carol, 'GET', '/api/v2/feed/explore/?limit=100')).json;
      must(!explore.results.some((u) => u[u.type]?.id === item.id && u.type === item.type), 'the event post is in explore');
    });
  }, { fullPage: false });

  await visit('event-gallery', async () => {
    await check("event-gallery: alice picks a photo in EventMediaWidget: the kit uploads it in chunks (media/upload/chunk/, complete/ with its MD5) and adds it (POST gallery/ 201); hearth's gallery holds it and the widget shows hearth's picture", async () => {
      must(event, 'no event');
      const widget = page.locator('.SCEventMediaWidget-root');
      const add = widget.locator('button').first();
      await add.waitFor({ timeout: WAIT_MS });
      const completed = page.waitForResponse((r) => r.url() === `${portal}/api/v2/media/upload/complete/`, { timeout: WAIT_MS });
      const added = page.waitForResponse((r) => r.url() === `${portal}/api/v2/event/${event}/gallery/` && r.request().method() === 'POST', { timeout: WAIT_MS });
      const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: WAIT_MS }), add.click()]);
      await chooser.setFiles({ name: 'loaves.png', mimeType: 'image/png', buffer: pngBytes(640, 400) });
      const done = await completed;
      must(done.status() === 201, `complete/ answered ${done.status()}: ${(await done.text()).slice(0, 300)}`);
      const resp = await added;
      must(resp.status() === 201, `POST gallery/ answered ${resp.status()}: ${(await resp.text()).slice(0, 300)}`);
      const media = await resp.json();
      must(media.type === 'image' && media.image.startsWith(`${portal}/media/m/`) && media.image_width > 0, `the media: ${JSON.stringify(media)}`);
      const gallery = (await api(bob, 'GET', `/api/v2/event/${event}/gallery/`)).json;
      must(gallery.count === 1 && gallery.results[0].id === media.id, `the gallery as bob reads it: ${JSON.stringify(gallery).slice(0, 300)}`);
      await page.waitForFunction((url) => [...document.querySelectorAll('.SCEventMediaWidget-media')].some((e) => getComputedStyle(e).backgroundImage.includes(url)), media.image, { timeout: WAIT_MS });
      const picture = await fetch(media.image);
      must(picture.ok && picture.headers.get('content-type').startsWith('image/'), `the picture: ${picture.status} ${picture.headers.get('content-type')}`);
    });
  }, { fullPage: false });

  await visit('events', async () => {
    await check(`events: the community's Events (GET /event/search/) and bob's MyEventsWidget (GET /event/?subscription_status=going) show "${NAME}"`, async () => {
      must(event, 'no event');
      await page.getByTestId('events').getByText(NAME).first().waitFor({ timeout: WAIT_MS });
      await page.getByTestId('my-events').getByText(NAME).first().waitFor({ timeout: WAIT_MS });
      const found = (await api(bob, 'GET', `/api/v2/event/search/?search=${encodeURIComponent('bake-along')}`)).json;
      must(found.results.some((e) => e.id === event), `the search: ${JSON.stringify(found).slice(0, 300)}`);
      const mine = (await api(bob, 'GET', '/api/v2/event/?subscription_status=going')).json;
      must(mine.results.some((e) => e.id === event), `bob's events: ${JSON.stringify(mine).slice(0, 300)}`);
    });
  }, { fullPage: false });
}
