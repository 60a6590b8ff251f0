// The hostile-links view of the UI suite (`xss-link`), run by run.mjs after the shares
// views. A link card (POST /api/v2/media/ {type: url}) carries a URL a member typed into
// every reader's page: the card's href, its title and the kit's preview of it. Every
// payload of the XSS corpus goes into a link's path, query and fragment: hearth stores
// the URL as the WHATWG URL standard writes it back (docs/decisions.md, "Pictures and
// event galleries"), so no quote, angle bracket or space reaches an attribute; the links
// go into posts (20 a post, the most a post shows), and carol's page shows the posts as
// feed cards. URLs that are no http(s) address of a host (javascript:, data:, a relative
// path, a name and password) are refused with 400 and never become a card.

const HOST = 'bakery.example';
const REFUSED = [
  "javascript:__xss('link-1')",
  "JaVaScRiPt:__xss('link-2')",
  " javascript:__xss('link-3')",
  "java\tscript:__xss('link-4')",
  "data:text/html,<script>__xss('link-5')</script>",
  'vbscript:msgbox(1)',
  "file:///etc/passwd",
  `//${HOST}/relative`,
  `/just/a/path`,
  `https://user:secret@${HOST}/`,
  `https://${HOST}/${'a'.repeat(2001)}`,
];

export async function linkViews(t) {
  const { visit, check, api, page, must, USERS, WAIT_MS, token, viewTokens, setIds, CORPUS, domVerdict } = t;
  const posts = [];
  const links = [];

  await check(`xss-link: bob makes a link of each of the ${CORPUS.length} corpus payloads (in the path, the query and the fragment): 201, each URL stored with no quote, angle bracket, backtick or space, the card's title ${HOST}; ${REFUSED.length} URLs that are no http(s) address are 400`, async () => {
    for (const bad of REFUSED) {
      const r = await api(USERS.bob, 'POST', '/api/v2/media/', { type: 'url', url: bad });
      must(r.status === 400, `${JSON.stringify(bad.slice(0, 60))} answered ${r.status}: ${JSON.stringify(r.json).slice(0, 200)}`);
    }
    let batch = [];
    const publish = async () => {
      const r = await api(USERS.bob, 'POST', '/api/v2/post/', { text: `<p class="SCEditor-paragraph">Links, part ${posts.length + 1}</p>`, medias: batch.map((m) => m.id) });
      must(r.status === 201 && r.json.medias?.length === batch.length, `the post: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
      posts.push(r.json.id);
      batch = [];
    };
    for (const p of CORPUS) {
      const url = `https://${HOST}/p/${p.text}?q=${p.text}#${p.text}`;
      const r = await api(USERS.bob, 'POST', '/api/v2/media/', { type: 'url', url });
      must(r.status === 201, `payload ${p.id}: ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
      const m = r.json;
      must(m.url.startsWith(`https://${HOST}/p/`) && !/["<>`\s]/.test(m.url), `payload ${p.id} stored as ${m.url}`);
      must(m.title === HOST && m.embed?.metadata?.title === HOST && m.embed.metadata.url === m.url, `payload ${p.id}'s card: ${JSON.stringify(m).slice(0, 300)}`);
      links.push(m);
      batch.push(m);
      if (batch.length === 20) await publish();
    }
    if (batch.length) await publish();
    Object.assign(viewTokens, { 'xss-link': token(USERS.carol) });
    setIds({ linkPosts: posts });
  });

  await visit('xss-link', async () => {
    await check(`xss-link: carol's page shows bob's ${Math.ceil(CORPUS.length / 20)} posts of links as feed cards, all ${CORPUS.length} link cards, each linking to the URL hearth stored`, async () => {
      must(posts.length, 'no posts (the seed above failed)');
      await page.waitForFunction((n) => document.querySelectorAll('#xss-link .SCMediaLink-display-root a').length >= n, links.length, { timeout: WAIT_MS * 2 });
      const hrefs = await page.locator("#xss-link .SCMediaLink-display-root a").evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      const stored = new Set(links.map((m) => m.url));
      must(hrefs.length === links.length, `${hrefs.length} link cards for ${links.length} links`);
      const odd = hrefs.filter((h) => !stored.has(h));
      must(!odd.length, `cards link to what hearth did not store: ${odd.slice(0, 3).join(' ')}`);
    });
    await check('xss-link: no script-capable markup in the cards', () => domVerdict('#xss-link'));
  }, { fullPage: false });
}
