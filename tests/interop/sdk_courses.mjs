// Interop check, run by scripts/test (and so by CI): drive a running hearth through the
// platform's own JavaScript SDK, @selfcommunity/api-services, and its CourseService.
// By hand (the pinned packages of tests/interop/package*.json):
//
//   mkdir -p /tmp/sdkcourses && cp tests/interop/package*.json /tmp/sdkcourses/ && npm ci --prefix /tmp/sdkcourses
//   cargo run -- --db /tmp/k.db init
//   echo pw-sdk | cargo run -- --db /tmp/k.db user create --username sdk --password-stdin
//   cargo run -- --db /tmp/k.db category create --name Science
//   cargo run -- --db /tmp/k.db serve --listen 127.0.0.1:8765 &
//   HEARTH_URL=http://127.0.0.1:8765 HEARTH_TOKEN=$(cargo run -q -- --db /tmp/k.db jwt mint --user-id 1) \
//     SDK_DIR=/tmp/sdkcourses node tests/interop/sdk_courses.mjs
//
// Exits 0 when every call answered as SPEC §5 says, 1 otherwise.

import { createRequire } from 'node:module';

const sdkDir = process.env.SDK_DIR ?? '/tmp/sdkcourses';
const require = createRequire(`${sdkDir}/package.json`);
const { http, CourseService } = require('@selfcommunity/api-services');

const url = process.env.HEARTH_URL ?? 'http://127.0.0.1:8765';
const token = process.env.HEARTH_TOKEN;
if (!token) {
  console.error('HEARTH_TOKEN is required (hearth jwt mint --user-id 1)');
  process.exit(2);
}
http.setBasePortal(url);
http.setAuthorizeToken(token);

let failures = 0;
function check(what, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok ? '' : `: ${JSON.stringify(detail)}`}`);
  if (!ok) failures += 1;
}

async function step(what, fn) {
  try {
    return await fn();
  } catch (e) {
    const r = e?.response;
    check(what, false, r ? { status: r.status, data: r.data } : String(e));
    return undefined;
  }
}

// a 2×1 PNG (red, blue), for changeCourseCover
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==',
  'base64',
);

const name = `SDK course ${Date.now()}`;
const created = await step('createCourse', () =>
  CourseService.createCourse({
    name,
    description: 'made through the SDK',
    type: 'self-paced',
    privacy: 'open',
    categories: [1],
  }),
);
if (created) {
  check('createCourse returns the course', created.name === name && created.join_status === 'creator', created);
  check('createCourse categories as Category JSON', created.categories?.[0]?.id === 1, created.categories);
  const id = created.id;

  const info = await step('getSpecificCourseInfo', () => CourseService.getSpecificCourseInfo(id, { view: 'user' }));
  check('getSpecificCourseInfo', info?.id === id && info?.slug === created.slug, info);

  const patched = await step('patchCourse', () => CourseService.patchCourse(id, { description: 'patched' }));
  check('patchCourse', patched?.description === 'patched', patched);

  const updated = await step('updateCourse', () =>
    CourseService.updateCourse(id, { name: `${name} v2`, type: 'structured' }),
  );
  check('updateCourse keeps omitted fields', updated?.type === 'structured' && updated?.description === 'patched', updated);

  const found = await step('searchCourses', () => CourseService.searchCourses({ search: 'sdk course', categories: [1] }));
  check('searchCourses finds it', found?.results?.some((c) => c.id === id), found);

  const mine = await step('getJoinedCourses', () => CourseService.getJoinedCourses({ statuses: ['creator'] }));
  check('getJoinedCourses', mine?.results?.some((c) => c.id === id), mine);

  const section = await step('createCourseSection', () => CourseService.createCourseSection(id, { name: 'Week 1' }));
  check('createCourseSection', section?.name === 'Week 1', section);
  const sections = await step('getCourseSections', () => CourseService.getCourseSections(id));
  check('getCourseSections', Array.isArray(sections) && sections[0]?.id === section?.id, sections);

  const status = await step('getCourseStatus', () => CourseService.getCourseStatus(id));
  check('getCourseStatus', status?.status === 'creator', status);

  const joined = await step('joinOrAcceptInviteToCourse', () => CourseService.joinOrAcceptInviteToCourse(id));
  check('joinOrAcceptInviteToCourse (creator: unchanged)', joined?.join_status === 'creator', joined);

  const members = await step('getCourseJoinedUsers', () => CourseService.getCourseJoinedUsers(id, {}));
  check('getCourseJoinedUsers', members?.results?.[0]?.join_status === 'creator', members);

  const form = new FormData();
  form.append('image_original', new Blob([PNG], { type: 'image/png' }), 'cover.png');
  const covered = await step('changeCourseCover', () => CourseService.changeCourseCover(id, form));
  check('changeCourseCover', covered?.image_small?.includes('/media/course/'), covered);
  if (covered) {
    const r = await fetch(covered.image_small);
    check('the cover is served', r.status === 200, r.status);
  }

  await step('deleteCourse', () => CourseService.deleteCourse(id));
  const after = await step('searchCourses after delete', () => CourseService.searchCourses({ search: 'sdk course' }));
  check('deleted course left the search', after && !after.results.some((c) => c.id === id), after);
}

console.log(failures === 0 ? 'all SDK calls passed' : `${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
