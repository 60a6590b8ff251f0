// A site built with the platform's UI kit (@selfcommunity/react-ui on react-core, and the
// page templates of @selfcommunity/react-templates), pointed at a hearth on another origin.
// tests/ui/run.mjs bundles it once with esbuild and drives it in headless Chromium;
// docs/ui-kit.md explains it for front-end developers.
//
// One bundle, several pages: `?view=` picks what to mount (the driver visits each in turn
// in the same browser):
//   widgets (default)  the §8 widgets: profile header, cards, follow widgets, a discussion;
//   shell              the app shell: NavigationToolbar (badge), a CustomAdv and Footer;
//   detail             the discussion page: react-templates' FeedObjectDetail (the
//                      contribution, its comment box, the comment list and replies);
//   composer           the Composer dialog; what it publishes is then shown as a feed card
//                      and as the detail, both read back from hearth;
//   composer-media     the Composer again: a picture picked with its add media button
//                      (the kit's chunked uploader) and published alone, read back as
//                      a card and a detail;
//   composer-link      the Composer again: a URL typed in its add link layer and published
//                      with a line of text, read back as a card and a detail (the link
//                      card of the site's name, its click tracker);
//   settings           the settings page's public info (UserProfileEdit): real name, bio...;
//   feed-home          react-templates MainFeed (home: own items, followed users and
//                      categories; GET /api/v2/feed/), paged by infinite scroll;
//   feed-explore       ExploreFeed (GET /api/v2/feed/explore/);
//   category           the Category page of Music (CategoryHeader, CategoryFeed and its
//                      trending widgets);
//   profile            the UserProfile page of barbara (UserProfileHeader, UserFeed);
//   search             NavigationToolbar, whose SearchAutocomplete asks /suggestion/;
//   mention            the Composer again: a post with an @-mention picked from the
//                      editor's list (GET /api/v2/user/search/), read back as a card;
//   xss-feed           every contribution of the XSS corpus (tests/ui/xss-corpus.json) as
//                      a feed card (FeedObject, preview template) and as a snippet, fed by
//                      hearth's contribution lists (every page of them);
//   xss-detail         the same contributions, each as FeedObject's detail template;
//   xss-related        a corpus post's page (FeedObjectDetail): its related sidebar lists
//                      other corpus posts with the snippet template;
//   xss-comments       the corpus's comments through the kit's comment list
//                      (CommentsObject, fed by hearth's GET /api/v2/comment/);
//   notify-bell        NavigationToolbar: the bell's badge after the seed's notifications;
//   notifications      react-templates NotificationFeed (GET /api/v2/notification/,
//                      which marks them seen) under the NavigationToolbar;
//   live-toast         NavigationToolbar, ToastNotifications and alice's post: a comment
//                      made elsewhere arrives through the live socket as a toast;
//   live-revoke        NavigationToolbar signed in with a JWT of alice's that the test
//                      revokes (the socket closes with 4001);
//   live-delete        the same, signed in as a user the test deletes;
//   avatar             (issue 32) erin's UserProfileHeader: the Change Profile Image dialog;
//   data-export        basil's AccountDataPortability: create, follow, download his data;
//   consent            dave's page: ConsentSolution asks him to accept the terms and the
//                      privacy policy hearth holds;
//   match              carol's UserAutocomplete: usernames pasted into its box are
//                      resolved by POST /api/v2/user/match/;
//   flag               carol's page: a post of bob's, flagged with its actions menu;
//   moderate           moira's (staff) page: the same post, deleted for a reason with it;
//   moderated          bob's NotificationFeed, telling him why;
//   connect-request    (connections on, follows off) erin's page: basil's card,
//                      whose friendship button asks him for a connection;
//   connect-accept     basil's page: the bell and UserConnectionsRequestsWidget (Accept);
//   connect-watch      erin's page again, open in a second browser context while basil
//                      accepts: her button turns without a reload (the live socket);
//   connect-list       erin's and basil's UserConnectionsWidget afterwards;
//   pm-thread          (private messages on) erin's messages page: PrivateMessageComponent
//                      with her thread with basil open (snippets, thread, editor);
//   pm-inbox           basil's messages page, no thread open, in a second browser context
//                      while erin writes: the snippet turns live, then he opens it;
//   pm-group           basil's messages page with erin's group "Workshop crew" in his snippets
//   pm-group-erin      erin's messages page, where she opens the group's thread (a second context)
//   sign-up            (no session) AccountVerify with a new member's mailed code;
//   recover            (no session) AccountRecover: a member asks for a recovery mail;
//   reset              (no session) AccountReset with the recovery code: a new password;
//   address            (issue 32) bob's InlineComposerWidget: a post addressed to his tag
//                      through the Composer's audience layer, then in ExploreFeed with
//                      the tag's chip;
//   tags               carol's page: bob's UserInfo with the tags staff gave him, and the
//                      explore feed without his addressed post (she holds no tag);
//   onboarding         alice's (staff, the community's creator) OnBoardingWidget;
//   share              (sharing on) bob's page: barbara's post (FeedObject), shared with
//                      its Share action ("Share now": the kit's Composer holding it);
//   share-shown        carol's page: bob's sharing post (barbara's inside it, the SHARE
//                      template) above barbara's post, whose "1 Share" opens SharesDialog;
//   xss-link           carol's page: bob's posts of links made of the XSS corpus (feed cards);
//   poll               (polls on) carol's page: alice's post with a poll (FeedObject),
//                      voted with its Vote buttons;
//   poll-suggest       dave's PollSuggestionWidget: alice's poll, which he has not answered;
//   course             bob's page of alice's course (react-templates Course): its
//                      sections in AccordionLessons, in sections_order order;
//   lesson             bob's page of the course's first lesson (react-templates
//                      Lesson): its text, the complete button, the comment drawer;
//   course-dashboard   alice's page of her course (Course with viewDashboard: the
//                      teacher's dashboard: average, students, their progress, comments);
//   course-notes       alice's NotificationFeed: bob's lesson comment, as the kit's
//                      course notification shows it;
//   course-edit        alice's course editor (react-ui EditCourse): a lesson added to a
//                      section with its row and published with its status select;
//   group-create       (issue 33, groups on) under the NavigationToolbar, whose
//                      composer button lists what /user/me/'s permission allows;
//                      alice's CreateGroupButton: the kit's GroupForm makes a group;
//   group-invite       alice's Group page (react-templates Group: GroupHeader, GroupFeed
//                      and its widgets): GroupInviteButton invites bob;
//   group-accept       bob's Group page: GroupSubscribeButton accepts the invitation;
//   group-post         bob's Group page again, under the group feed's InlineComposerWidget
//                      (see GroupComposer): he posts in the group, the feed shows it;
//   groups             alice's Groups list (react-ui Groups: the groups she is in).
//   event-create       (issue 33, events on) alice's CreateEventButton: the kit's
//                      EventForm makes an online event;
//   event-rsvp         bob's event page (react-templates Event: EventHeader, EventFeed
//                      and its widgets): EventSubscribeButton answers going;
//   event-post         bob's event page again, under the event feed's composer (see
//                      EventComposer): he posts in the event, its feed shows it;
//   event-gallery      alice's EventMediaWidget: she uploads a photo (the kit's chunked
//                      uploader) into her event's gallery;
//   events             the community's Events (react-ui Events: the search) and bob's
//                      MyEventsWidget (the events he goes to).
//
// Every view opens the kit's live socket (SCNotificationProvider, useSCWebSocket) at
// ws://<portal's host, no port>/ws/notify?subscribe-user, with `notifications.webSocket`
// {secure: false, prefixPath: 'ws'}: the driver listens on 127.0.0.1:80 and passes it on
// to hearth's port, as a site's reverse proxy does (docs/ui-kit.md).
//
// The only hearth-specific part is the configuration: the portal (hearth's URL, which
// hearth must allow with `serve --cors-origin <this page's origin>`) and a JWT session
// (a token from `hearth jwt mint`, or an OAuth access token). The page reads it from
// ./config.json, written by the test driver.
import React, { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { SCContextProvider, useSCFetchEvent, useSCFetchGroup } from '@selfcommunity/react-core';
import theme from '@selfcommunity/react-theme-default';
import {
  AccountDataPortability,
  AccountRecover,
  AccountReset,
  AccountVerify,
  CategoriesPopularWidget,
  CommentsObject,
  Composer,
  ConsentSolution,
  Course,
  CreateEventButton,
  CreateGroupButton,
  CustomAdv,
  EditCourse,
  EventMediaWidget,
  Events,
  MyEventsWidget,
  Groups,
  InlineComposerWidget,
  FeedObject,
  Footer,
  OnBoardingWidget,
  PollSuggestionWidget,
  NavigationToolbar,
  PrivateMessageComponent,
  SCFeedObjectTemplateType,
  User,
  UserConnectionsRequestsWidget,
  UserConnectionsWidget,
  UserCreatedCoursesWidget,
  UserFollowedUsersWidget,
  UserFollowersWidget,
  ToastNotifications,
  UserInfo,
  UserProfileEdit,
  UserProfileHeader,
  UserAutocomplete,
} from '@selfcommunity/react-ui';
import { Category, Course as CourseTemplate, Event, ExploreFeed, FeedObjectDetail, Group, Lesson as LessonTemplate, MainFeed, NotificationFeed, UserProfile } from '@selfcommunity/react-templates';

// One widget's crash must not blank the page (React unmounts the whole tree on an
// uncaught render error): each section catches its own, shows it, and records it in
// window.__widgetErrors, which the test driver fails on.
class Boundary extends React.Component {
  constructor(props) {
    super(props);
    this.state = { error: null };
  }
  static getDerivedStateFromError(error) {
    return { error };
  }
  componentDidCatch(error, info) {
    (window.__widgetErrors ??= []).push(`${this.props.name}: ${error.message}`);
    // (UI_DEBUG=1 prints the page's console, and bundles unminified: where it broke)
    console.error(`${this.props.name} crashed: ${error.stack}\n${info?.componentStack ?? ''}`.slice(0, 3000));
  }
  render() {
    if (this.state.error) return <pre className="crashed">{`${this.props.name} crashed: ${this.state.error.message}`}</pre>;
    return this.props.children;
  }
}

function Section({ id, title, wide, children }) {
  return (
    <section id={id} data-testid={id} className={wide ? 'wide' : undefined}>
      <h2>{title}</h2>
      <Boundary name={title}>{children}</Boundary>
    </section>
  );
}

// A page of one wide section.
function Single({ id, title, children }) {
  return (
    <main className="single">
      <Section id={id} title={title} wide>
        {children}
      </Section>
    </main>
  );
}

// A page under the kit's top bar, whose bell shows the unseen notifications.
function WithBell({ children }) {
  return (
    <div className="page">
      <Section id="navbar" title="NavigationToolbar (the bell)" wide>
        <NavigationToolbar />
      </Section>
      {children}
    </div>
  );
}

// The widgets that list what one user follows, is followed by, or created: each given
// the signed-in user.
const USER_WIDGETS = [
  ['followings', 'UserFollowedUsersWidget', UserFollowedUsersWidget],
  ['followers', 'UserFollowersWidget', UserFollowersWidget],
  ['created-courses', 'UserCreatedCoursesWidget', UserCreatedCoursesWidget],
];

function Widgets({ config }) {
  const { me, other, course, discussion } = config.ids;
  return (
    <main>
      <Section id="profile" title="UserProfileHeader" wide>
        <UserProfileHeader userId={me} />
      </Section>
      <div>
        <Section id="feed" title="FeedObject (discussion)">
          <FeedObject feedObjectId={discussion} feedObjectType="discussion" />
        </Section>
        <Section id="course" title="Course">
          <Course courseId={course} />
        </Section>
      </div>
      <div>
        <Section id="card" title="User">
          <User userId={other} />
        </Section>
        {USER_WIDGETS.map(([id, title, Widget]) => (
          <Section key={id} id={id} title={title}>
            <Widget userId={me} />
          </Section>
        ))}
        <Section id="categories" title="CategoriesPopularWidget">
          <CategoriesPopularWidget />
        </Section>
      </div>
    </main>
  );
}

// The app shell: the kit's top bar (notifications badge, composer button, menus) and
// footer around a page's content.
function Shell({ config }) {
  return (
    <div className="page">
      <Section id="navbar" title="NavigationToolbar" wide>
        <NavigationToolbar />
      </Section>
      <Section id="adv" title="CustomAdv (BELOW_TOPBAR)" wide>
        <CustomAdv position="BELOW_TOPBAR" />
      </Section>
      <main>
        <Section id="content" title="FeedObject (discussion)" wide>
          <FeedObject feedObjectId={config.ids.discussion} feedObjectType="discussion" />
        </Section>
      </main>
      <Section id="footer" title="Footer" wide>
        <Footer />
      </Section>
    </div>
  );
}

// The discussion page as the templates build it.
function Detail({ config }) {
  return (
    <Single id="detail" title="react-templates FeedObjectDetail (discussion)">
      <FeedObjectDetail feedObjectId={config.ids.discussion} feedObjectType="discussion" />
    </Single>
  );
}

// The Composer, open as the navbar's button opens it; what it publishes is then read back
// from hearth by id and shown as a feed card and as the detail.
function ComposerPage() {
  const [created, setCreated] = useState(null);
  return (
    <main className="single">
      <Section id="composer" title="Composer" wide>
        <Composer open={!created} fullWidth maxWidth="sm" onSuccess={(obj) => setCreated(obj)} onClose={() => {}} />
        {created && <p data-testid="created">{`published ${created.type} ${created.id}`}</p>}
      </Section>
      {created && (
        <>
          <Section id="created-preview" title="FeedObject (preview) of what the Composer published" wide>
            <FeedObject feedObjectId={created.id} feedObjectType={created.type} />
          </Section>
          <Section id="created-detail" title="FeedObject (detail) of what the Composer published" wide>
            <FeedObject feedObjectId={created.id} feedObjectType={created.type} template={SCFeedObjectTemplateType.DETAIL} />
          </Section>
        </>
      )}
    </main>
  );
}

// The settings page: the signed-in member's public info, saved with PATCH /api/v2/user/{id}/.
function Settings() {
  return (
    <Single id="settings" title="react-ui UserProfileEdit (settings: public info)">
      <UserProfileEdit />
    </Single>
  );
}

// hearth's own list of one contribution type, every page of it (followed through `next`:
// the feeds' community makes the lists longer than one page).
async function list(config, path) {
  const out = [];
  let url = `${config.portal}/api/v2/${path}`;
  while (url && out.length < 5000) {
    const r = await fetch(url, { headers: { authorization: `Bearer ${config.token}` } });
    if (!r.ok) throw new Error(`GET ${url}: ${r.status}`);
    const body = await r.json();
    out.push(...body.results);
    url = body.next ? new URL(body.next, config.portal).href : null;
  }
  return out;
}

// corpus id → item id, in corpus order ("10" would come before "01" in Object.entries)
const corpusEntries = (ids) => Object.entries(ids).sort(([a], [b]) => a.localeCompare(b));

// The corpus's items, as hearth lists them: [{key, corpus id, item}], in corpus order.
function useCorpusItems(config) {
  const [items, setItems] = useState(null);
  useEffect(() => {
    (async () => {
      const out = [];
      for (const type of ['discussion', 'post', 'status']) {
        const byId = new Map((await list(config, `${type}/?limit=100`)).map((o) => [o.id, o]));
        for (const [cid, id] of corpusEntries(config.xss[type])) {
          out.push({ key: `${type}-${cid}`, cid, type, id, item: byId.get(id) ?? null });
        }
      }
      setItems(out);
    })().catch((e) => (window.__widgetErrors ??= []).push(`corpus lists: ${e.message}`));
  }, []);
  return items;
}

function XssFeed({ config }) {
  const items = useCorpusItems(config);
  if (!items) return <p>loading</p>;
  return (
    <Single id="xss-feed" title="XSS corpus: feed cards (FeedObject preview) and snippets">
      {items.map(({ key, cid, type, id, item }) =>
        item ? (
          <div key={key} className="xss-item" data-xss={`preview-${key}`} data-cid={cid}>
            <FeedObject feedObject={item} feedObjectType={type} template={SCFeedObjectTemplateType.PREVIEW} />
            <div data-xss={`snippet-${key}`} data-cid={cid}>
              <FeedObject feedObject={item} feedObjectType={type} template={SCFeedObjectTemplateType.SNIPPET} />
            </div>
          </div>
        ) : (
          <p key={key} className="missing" data-missing={key}>{`${type} ${id} is not in hearth's list`}</p>
        ),
      )}
    </Single>
  );
}

function XssDetail({ config }) {
  const entries = ['discussion', 'post', 'status'].flatMap((type) =>
    corpusEntries(config.xss[type]).map(([cid, id]) => ({ key: `${type}-${cid}`, cid, type, id })),
  );
  return (
    <Single id="xss-detail" title="XSS corpus: FeedObject detail template, each read by id">
      {entries.map(({ key, cid, type, id }) => (
        <div key={key} className="xss-item" data-xss={`detail-${key}`} data-cid={cid}>
          <FeedObject feedObjectId={id} feedObjectType={type} template={SCFeedObjectTemplateType.DETAIL} />
        </div>
      ))}
    </Single>
  );
}

// a corpus post's page: its related sidebar shows the other corpus posts of its category
function XssRelated({ config }) {
  return (
    <Single id="xss-related" title="XSS corpus: a post's page (react-templates FeedObjectDetail) and its related sidebar">
      <FeedObjectDetail feedObjectId={config.xss.post['01']} feedObjectType="post" />
    </Single>
  );
}

function XssComments({ config }) {
  const [state, setState] = useState(null);
  useEffect(() => {
    (async () => {
      const host = config.xss.commentHost;
      const [post] = (await list(config, `post/?limit=100`)).filter((o) => o.id === host);
      const comments = await list(config, `comment/?post=${host}&limit=100&ordering=added_at`);
      setState({ post, comments });
    })().catch((e) => (window.__widgetErrors ??= []).push(`comment list: ${e.message}`));
  }, []);
  if (!state) return <p>loading</p>;
  return (
    <Single id="xss-comments" title="XSS corpus: the comment list (CommentsObject)">
      <CommentsObject
        feedObject={state.post}
        feedObjectType="post"
        comments={state.comments}
        totalLoadedComments={state.comments.length}
        totalComments={state.comments.length}
      />
    </Single>
  );
}

// The feeds (issue 30), as react-templates builds their pages: home (MainFeed: own items,
// followed users and categories), explore (ExploreFeed: everything), a category's page
// (Category: CategoryHeader and CategoryFeed) and a member's profile (UserProfile:
// UserProfileHeader and UserFeed). Each pages with infinite scroll.
function HomeFeed() {
  return (
    <Single id="feed-home" title="react-templates MainFeed (home)">
      <MainFeed />
    </Single>
  );
}

function Explore() {
  return (
    <Single id="feed-explore" title="react-templates ExploreFeed">
      <ExploreFeed />
    </Single>
  );
}

function CategoryPage({ config }) {
  return (
    <Single id="category" title="react-templates Category (Music: CategoryHeader, CategoryFeed)">
      <Category categoryId={config.ids.music} />
    </Single>
  );
}

function Profile({ config }) {
  return (
    <Single id="profile-page" title="react-templates UserProfile (barbara: UserProfileHeader, UserFeed)">
      <UserProfile userId={config.ids.barbara} />
    </Single>
  );
}

// The navbar's search (NavigationToolbar's SearchAutocomplete: GET /api/v2/suggestion/).
function Search() {
  return (
    <div className="page">
      <Section id="search" title="NavigationToolbar: SearchAutocomplete" wide>
        <NavigationToolbar />
      </Section>
    </div>
  );
}

// The notifications (issue 31): the bell, the notifications page, the live socket's toast.
function Bell() {
  return <WithBell />;
}

function Notifications() {
  return (
    <WithBell>
      <Single id="notifications" title="react-templates NotificationFeed">
        <NotificationFeed />
      </Single>
    </WithBell>
  );
}

// alice's page while someone else comments on her post: the toast (ToastNotifications,
// fed by the live socket) and the bell's badge
function LiveToast({ config }) {
  return (
    <WithBell>
      <Section id="toasts" title="ToastNotifications" wide>
        <ToastNotifications />
      </Section>
      <Single id="live-post" title="FeedObject (alice's post)">
        <FeedObject feedObjectId={config.ids.alicePost} feedObjectType="post" />
      </Single>
    </WithBell>
  );
}

// Connections (issue 32): with configurations.connection_enabled on and follow_enabled off,
// the kit's user buttons are friendship buttons (FriendshipUserButton).
function ConnectCard({ config }) {
  return (
    <Single id="connect-card" title="User (basil) with FriendshipUserButton">
      <User userId={config.ids.basil} />
    </Single>
  );
}

function AvatarPage({ config }) {
  return (
    <Single id="avatar" title="UserProfileHeader (erin's own: ChangePicture)">
      <UserProfileHeader userId={config.ids.erin} />
    </Single>
  );
}

function DataExport() {
  return (
    <Single id="data-export" title="AccountDataPortability (basil's)">
      <AccountDataPortability />
    </Single>
  );
}

function Consent() {
  return (
    <Single id="consent" title="ConsentSolution (dave's)">
      <ConsentSolution />
    </Single>
  );
}

function MatchNames() {
  return (
    <Single id="match" title="UserAutocomplete (carol's): usernames pasted into its box">
      <UserAutocomplete />
    </Single>
  );
}

function FlaggedPost({ config }) {
  return (
    <Single id="flagged-post" title="FeedObject (bob's post) and its actions menu">
      <FeedObject feedObjectId={config.ids.spamPost} feedObjectType="post" />
    </Single>
  );
}

function ConnectAccept({ config }) {
  return (
    <WithBell>
      <Single id="connect-requests" title="UserConnectionsRequestsWidget">
        <UserConnectionsRequestsWidget />
      </Single>
    </WithBell>
  );
}

function ConnectList({ config }) {
  return (
    <main>
      <Section id="connections-erin" title="UserConnectionsWidget (erin's)">
        <UserConnectionsWidget userId={config.ids.erin} />
      </Section>
      <Section id="connections-basil" title="UserConnectionsWidget (basil's)">
        <UserConnectionsWidget userId={config.ids.basil} />
      </Section>
    </main>
  );
}

// Private messages (issue 33): the kit's messages page, PrivateMessageComponent (the
// snippets beside the open thread and its editor), as erin with basil's thread open and
// as basil with none open. The component fills its container's height (a site gives it
// the window's, under its top bar).
const PM_HEIGHT = { height: 600 };

function PmThread({ config }) {
  return (
    <Single id="pm" title="PrivateMessageComponent (erin's, the thread with basil)">
      <div style={PM_HEIGHT}>
        <PrivateMessageComponent id={config.ids.basil} type="user" />
      </div>
    </Single>
  );
}

function PmInbox() {
  return (
    <Single id="pm" title="PrivateMessageComponent (basil's)">
      <div style={PM_HEIGHT}>
        <PrivateMessageComponent />
      </div>
    </Single>
  );
}

function PmGroup() {
  return (
    <Single id="pm" title="PrivateMessageComponent (basil's, the group's thread in his snippets)">
      <div style={PM_HEIGHT}>
        <PrivateMessageComponent />
      </div>
    </Single>
  );
}

// (erin opens the group's thread from her snippets, as basil does: opened by id, react-ui's
// thread fetches `/user/{id}/` with the group's id, a bug of the kit's own)
function PmGroupErin() {
  return (
    <Single id="pm" title="PrivateMessageComponent (erin's, she opens the group's thread)">
      <div style={PM_HEIGHT}>
        <PrivateMessageComponent />
      </div>
    </Single>
  );
}

function PollPost({ config }) {
  return (
    <Single id="poll-post" title="FeedObject (alice's post with a poll)">
      <FeedObject feedObjectId={config.ids.pollPost} feedObjectType="post" />
    </Single>
  );
}

function PollSuggest() {
  return (
    <Single id="poll-suggest" title="PollSuggestionWidget (dave's: the polls he has not answered)">
      <PollSuggestionWidget autoHide={false} />
    </Single>
  );
}

function SignUpVerify({ config }) {
  return (
    <Single id="verify" title="AccountVerify (a new member's mailed code)">
      <AccountVerify validationCode={config.ids.signupCode} />
    </Single>
  );
}

function Recover() {
  return (
    <Single id="recover" title="AccountRecover">
      <AccountRecover />
    </Single>
  );
}

function Reset({ config }) {
  return (
    <Single id="reset" title="AccountReset (the mailed recovery code)">
      <AccountReset validationCode={config.ids.resetCode} />
    </Single>
  );
}

// A course's page as a member sees it (react-templates Course: CourseDashboard.Student,
// whose AccordionLessons lists the sections of GET /course/{id}/?view=user).
function CoursePage({ config }) {
  return (
    <Single id="course" title="Course (react-templates): bob's view of alice's course">
      <CourseTemplate courseId={config.ids.course} />
    </Single>
  );
}

// The course's page as its creator sees it: the teacher's dashboard
// (CourseDashboard.Teacher: GET /course/{id}/?view=dashboard, /users/, /comment/).
function CourseDashboardPage({ config }) {
  return (
    <Single id="course-dashboard" title="Course (react-templates, viewDashboard): alice's dashboard">
      <CourseTemplate courseId={config.ids.course} viewDashboard />
    </Single>
  );
}

// The course editor (react-ui EditCourse, its Lessons tab: GET /course/{id}/?view=edit,
// the lesson rows' POST and PATCH).
function CourseEditPage({ config }) {
  return (
    <Single id="course-edit" title="EditCourse (react-ui): alice's course editor">
      <EditCourse courseId={config.ids.course} />
    </Single>
  );
}

// A lesson's page as a member sees it (react-templates Lesson: the lesson of
// GET …/lesson/{id}/, the course's outline of ?view=user, the complete button, the
// comment drawer).
function LessonPage({ config }) {
  return (
    <Single id="lesson" title="Lesson (react-templates): bob's view of alice's first lesson">
      <LessonTemplate courseId={config.ids.course} sectionId={config.ids.lessonSection} lessonId={config.ids.lesson} />
    </Single>
  );
}

// Groups (issue 33): with configurations.groups_enabled on.
function GroupCreate() {
  return (
    <WithBell>
      <Single id="group-create" title="CreateGroupButton (alice's): GroupForm">
        <CreateGroupButton />
      </Single>
    </WithBell>
  );
}

function GroupPage({ config }) {
  return (
    <WithBell>
      <Single id="group" title="Group (react-templates): GroupHeader, GroupFeed">
        <Group groupId={config.ids.group} />
      </Single>
    </WithBell>
  );
}

// The group feed's own composer, as GroupFeed makes it (InlineComposerWidget with the
// group as its default audience): GroupFeed shows it as its feed's header only once its
// virtual scroller has mounted, a ref no render follows, so on a freshly loaded page it
// does not show; the same widget is mounted here above the page.
function GroupComposer({ groupId }) {
  const { scGroup } = useSCFetchGroup({ id: groupId });
  return scGroup ? <InlineComposerWidget defaultValue={{ group: scGroup }} feedType="group" /> : null;
}

function GroupPostPage({ config }) {
  return (
    <WithBell>
      <Single id="group-composer" title="InlineComposerWidget (the group feed's composer)">
        <GroupComposer groupId={config.ids.group} />
      </Single>
      <Single id="group" title="Group (react-templates): GroupHeader, GroupFeed">
        <Group groupId={config.ids.group} />
      </Single>
    </WithBell>
  );
}

function GroupsList() {
  return (
    <Single id="groups" title="Groups (alice's)">
      <Groups />
    </Single>
  );
}

// Events (issue 33): with configurations.events_enabled on.
function EventCreate() {
  return (
    <Single id="event-create" title="CreateEventButton (alice's): EventForm">
      <CreateEventButton />
    </Single>
  );
}

// An event's page: react-templates Event (EventHeader, then EventFeed with its info
// widget, its composer for members, and its widgets: location, members, the photo
// gallery, related events).
function EventSection({ config }) {
  return (
    <Single id="event" title="Event (react-templates): EventHeader, EventFeed">
      <Event eventId={config.ids.event} />
    </Single>
  );
}

function EventPage({ config }) {
  return (
    <WithBell>
      <EventSection config={config} />
    </WithBell>
  );
}

// The event feed's own composer, as EventFeed makes it (InlineComposerWidget with the
// event as its default audience), mounted above the page for the reason GroupComposer
// says.
function EventComposer({ eventId }) {
  const { scEvent } = useSCFetchEvent({ id: eventId });
  return scEvent ? <InlineComposerWidget defaultValue={{ event: scEvent }} feedType="event" /> : null;
}

function EventPostPage({ config }) {
  return (
    <WithBell>
      <Single id="event-composer" title="InlineComposerWidget (the event feed's composer)">
        <EventComposer eventId={config.ids.event} />
      </Single>
      <EventSection config={config} />
    </WithBell>
  );
}

// The event's photo gallery as its manager sees it (EventFeed shows the same widget in
// its right column).
function EventGalleryPage({ config }) {
  return (
    <Single id="event-gallery" title="EventMediaWidget (alice's event)">
      <EventMediaWidget eventId={config.ids.event} />
    </Single>
  );
}

function EventsPage() {
  return (
    <div className="page">
      <Section id="events" title="Events (the search)" wide>
        <Events />
      </Section>
      <Section id="my-events" title="MyEventsWidget (bob's)">
        <MyEventsWidget />
      </Section>
    </div>
  );
}

// User tags (issue 32): bob's UserInfo with its tags field (the tags staff gave him that
// are visible), above the explore feed as carol (who holds no tag) sees it.
function TaggedUser({ config }) {
  return (
    <div className="page">
      <Section id="user-info" title="UserInfo (bob's, with his tags)">
        <UserInfo userId={config.ids.bob} fields={['real_name', 'tags']} />
      </Section>
      <Section id="tags-feed" title="ExploreFeed (carol's: without bob's post for the club)" wide>
        <ExploreFeed />
      </Section>
    </div>
  );
}

// Addressing (issue 32): bob's InlineComposerWidget, whose audience layer addresses a
// post to his tag, above the explore feed that shows it with the tag's chip.
function AddressPost() {
  return (
    <div className="page">
      <Section id="address-composer" title="InlineComposerWidget (bob's)">
        <InlineComposerWidget />
      </Section>
      <Section id="address-feed" title="ExploreFeed (bob's: his post for the club, with its chip)" wide>
        <ExploreFeed />
      </Section>
    </div>
  );
}

// Onboarding (issue 32): the widget the kit shows the community's creator (alice, staff).
function Onboarding() {
  return (
    <Single id="onboarding" title="OnBoardingWidget (alice's, the community's creator)">
      <OnBoardingWidget />
    </Single>
  );
}

// Shares (addons.share_post_enabled on): barbara's post with its Share action, and the
// post that shares it, which shows hers inside it.
function SharedPost({ config }) {
  return (
    <Single id="shared-post" title="FeedObject (barbara's post) and its Share action">
      <FeedObject feedObjectId={config.ids.sharedPost} feedObjectType="post" />
    </Single>
  );
}

function XssLinks({ config }) {
  return (
    <main className="single">
      <Section id="xss-link" title="FeedObject (bob's posts of links made of the XSS corpus)" wide>
        {(config.ids.linkPosts ?? []).map((id) => (
          <FeedObject key={id} feedObjectId={id} feedObjectType="post" />
        ))}
      </Section>
    </main>
  );
}

function SharesShown({ config }) {
  return (
    <main className="single">
      <Section id="sharing-post" title="FeedObject (bob's post sharing barbara's)" wide>
        <FeedObject feedObjectId={config.ids.sharingPost} feedObjectType="post" />
      </Section>
      <Section id="shared-post" title="FeedObject (barbara's post, shared once)" wide>
        <FeedObject feedObjectId={config.ids.sharedPost} feedObjectType="post" />
      </Section>
    </main>
  );
}

const VIEWS = {
  widgets: Widgets,
  shell: Shell,
  detail: Detail,
  composer: ComposerPage,
  'composer-media': ComposerPage,
  'composer-link': ComposerPage,
  settings: Settings,
  'feed-home': HomeFeed,
  'feed-explore': Explore,
  category: CategoryPage,
  profile: Profile,
  search: Search,
  mention: ComposerPage,
  'xss-feed': XssFeed,
  'xss-detail': XssDetail,
  'xss-related': XssRelated,
  'xss-comments': XssComments,
  'notify-bell': Bell,
  notifications: Notifications,
  'live-toast': LiveToast,
  'live-revoke': Bell,
  'live-delete': Bell,
  avatar: AvatarPage,
  'data-export': DataExport,
  consent: Consent,
  match: MatchNames,
  flag: FlaggedPost,
  moderate: FlaggedPost,
  moderated: Notifications,
  'connect-request': ConnectCard,
  'connect-accept': ConnectAccept,
  'connect-watch': ConnectCard,
  'connect-list': ConnectList,
  'pm-thread': PmThread,
  'pm-inbox': PmInbox,
  'pm-group': PmGroup,
  'pm-group-erin': PmGroupErin,
  'sign-up': SignUpVerify,
  recover: Recover,
  reset: Reset,
  poll: PollPost,
  'poll-suggest': PollSuggest,
  course: CoursePage,
  lesson: LessonPage,
  'course-dashboard': CourseDashboardPage,
  'course-edit': CourseEditPage,
  'course-notes': Notifications,
  'group-create': GroupCreate,
  'group-invite': GroupPage,
  'group-accept': GroupPage,
  'group-post': GroupPostPage,
  groups: GroupsList,
  'event-create': EventCreate,
  'event-rsvp': EventPage,
  'event-post': EventPostPage,
  'event-gallery': EventGalleryPage,
  events: EventsPage,
  address: AddressPost,
  tags: TaggedUser,
  onboarding: Onboarding,
  share: SharedPost,
  'share-shown': SharesShown,
  'xss-link': XssLinks,
};

const config = await (await fetch('./config.json')).json();
const view = new URLSearchParams(location.search).get('view') ?? 'widgets';
const View = VIEWS[view];
const conf = {
  portal: config.portal,
  // (live-revoke and live-delete sign in with tokens of their own, which the test ends)
  session: { type: 'JWT', authToken: { accessToken: config.tokens?.[view] ?? config.token } },
  locale: { default: 'en' },
  theme,
  // the live socket: ws://<the portal's host name>/ws/notify (react-core drops the
  // portal's port: something must serve /ws/ on port 80 of that host, or 443 with
  // secure: true)
  notifications: { webSocket: { secure: false, prefixPath: 'ws' } },
};
document.body.dataset.view = view;
createRoot(document.getElementById('root')).render(
  View ? (
    <SCContextProvider conf={conf}>
      <View config={config} />
    </SCContextProvider>
  ) : (
    <pre className="crashed">{`no view ${view}`}</pre>
  ),
);
