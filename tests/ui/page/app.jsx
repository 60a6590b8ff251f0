// A page built with the platform's UI kit (@selfcommunity/react-ui on react-core),
// pointed at a hearth on another origin. tests/ui/run.mjs bundles it with esbuild and
// drives it in headless Chromium; docs/ui-kit.md explains it for front-end developers.
//
// The only hearth-specific part is the configuration: the portal (hearth's URL, which
// hearth must allow with `serve --cors-origin <this page's origin>`) and a JWT session
// (a token from `hearth jwt mint`, or an OAuth access token). The page reads it from
// ./config.json, written by the test driver.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { SCContextProvider } from '@selfcommunity/react-core';
import theme from '@selfcommunity/react-theme-default';
import {
  CategoriesPopularWidget,
  Course,
  FeedObject,
  User,
  UserCreatedCoursesWidget,
  UserFollowedUsersWidget,
  UserFollowersWidget,
  UserProfileHeader,
} from '@selfcommunity/react-ui';

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
  componentDidCatch(error) {
    (window.__widgetErrors ??= []).push(`${this.props.name}: ${error.message}`);
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

// The widgets that list what one user follows, is followed by, or created: each given
// the signed-in user.
const USER_WIDGETS = [
  ['followings', 'UserFollowedUsersWidget', UserFollowedUsersWidget],
  ['followers', 'UserFollowersWidget', UserFollowersWidget],
  ['created-courses', 'UserCreatedCoursesWidget', UserCreatedCoursesWidget],
];

function Page({ config }) {
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

const config = await (await fetch('./config.json')).json();
const conf = {
  portal: config.portal,
  session: { type: 'JWT', authToken: { accessToken: config.token } },
  locale: { default: 'en' },
  theme,
};
createRoot(document.getElementById('root')).render(
  <SCContextProvider conf={conf}>
    <Page config={config} />
  </SCContextProvider>,
);
