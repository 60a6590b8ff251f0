-- hearth schema, version 13 (kept in PRAGMA user_version; see src/db/migrate.rs, which
-- brings older files up to this version in place).
--
-- Conventions:
--   * times are INTEGER microseconds since the Unix epoch (UTC); the API formats them;
--   * booleans are INTEGER 0/1;
--   * an enumeration of three or more values is CHECKed with `=` and OR, not IN: for an
--     IN list that long SQLite builds a temporary B-tree on every execution of the
--     statement (perf: 15% of importing a user row);
--   * every secret (client secrets, tokens, codes, session ids) is stored as the SHA-256
--     of its value, never the value itself;
--   * counters that the API shows (followers, posts, comments...) are columns kept exact
--     by the code that changes what they count; `hearth check` recomputes them.

CREATE TABLE user (
    id                  INTEGER PRIMARY KEY,
    username            TEXT    NOT NULL,
    username_key        TEXT    NOT NULL UNIQUE,          -- lowercased username: unique, login lookup
    email               TEXT,
    real_name           TEXT    NOT NULL DEFAULT '',
    password            TEXT,                             -- Django format pbkdf2_sha256$iter$salt$hash, NULL = none
    is_staff            INTEGER NOT NULL DEFAULT 0,
    ext_id              TEXT,
    avatar              TEXT    NOT NULL DEFAULT '',
    cover               TEXT    NOT NULL DEFAULT '',
    bio                 TEXT    NOT NULL DEFAULT '',
    location            TEXT    NOT NULL DEFAULT '',
    location_lat_lng    TEXT,
    position_lat_lng    TEXT,
    date_of_birth       TEXT,                             -- YYYY-MM-DD
    description         TEXT    NOT NULL DEFAULT '',
    gender              TEXT    NOT NULL DEFAULT 'Unspecified' CHECK (gender = 'Male' OR gender = 'Female' OR gender = 'Unspecified'),
    website             TEXT    NOT NULL DEFAULT '',
    reputation          INTEGER NOT NULL DEFAULT 0,
    community_badge     INTEGER NOT NULL DEFAULT 0,
    reg_approved        INTEGER NOT NULL DEFAULT 1,
    company_name        TEXT    NOT NULL DEFAULT '',
    company_role        TEXT    NOT NULL DEFAULT '',
    followings_counter  INTEGER NOT NULL DEFAULT 0,
    followers_counter   INTEGER NOT NULL DEFAULT 0,
    mutuals_counter     INTEGER NOT NULL DEFAULT 0,       -- live users followed by and following this one (mutual=1 edges)
    posts_counter       INTEGER NOT NULL DEFAULT 0,
    discussions_counter INTEGER NOT NULL DEFAULT 0,
    polls_counter       INTEGER NOT NULL DEFAULT 0,
    date_joined         INTEGER NOT NULL,
    deleted             INTEGER NOT NULL DEFAULT 0,
    categories_counter  INTEGER NOT NULL DEFAULT 0,       -- categories this user follows (version 3: last, added by ALTER TABLE)
    unseen_notifications INTEGER NOT NULL DEFAULT 0,      -- notifications not yet seen (version 9, kept by triggers)
    connections_counter  INTEGER NOT NULL DEFAULT 0,      -- connections (friendships) of this user (version 9, kept by triggers)
    connection_requests_sent_counter     INTEGER NOT NULL DEFAULT 0, -- requests this user sent, still open (version 9)
    connection_requests_received_counter INTEGER NOT NULL DEFAULT 0, -- requests to this user, open and not rejected (version 9)
    blocked_at    INTEGER,                                -- when staff blocked this user (version 10; NULL: not blocked)
    blocked_until INTEGER                                 -- when the block ends (NULL with blocked_at: never)
);
CREATE UNIQUE INDEX user_email ON user (email COLLATE NOCASE) WHERE email IS NOT NULL;

-- A user tag (SCTagType). `name` is unique over all tags (hearth keeps only user
-- tags, so the platform's "unique together with type" is the same rule); the columns
-- after `name` are version 10's, their defaults what an older file's tags were.
CREATE TABLE tag (
    id               INTEGER PRIMARY KEY,
    name             TEXT NOT NULL UNIQUE,
    description      TEXT NOT NULL DEFAULT '',
    color            TEXT NOT NULL DEFAULT '#9e9e9e',
    visible          INTEGER NOT NULL DEFAULT 1,
    visibility_boost INTEGER NOT NULL DEFAULT 0,
    active           INTEGER NOT NULL DEFAULT 1,
    deleted          INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE user_tag (
    user_id INTEGER NOT NULL REFERENCES user (id) ON DELETE CASCADE,
    tag_id  INTEGER NOT NULL REFERENCES tag (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, tag_id)
) WITHOUT ROWID;

-- A follow edge. `mutual` is 1 when the reverse edge exists too; both edges of a pair
-- are kept in step, so "mutual first, newest first" is an index walk, not a sort.
CREATE TABLE follow (
    follower   INTEGER NOT NULL REFERENCES user (id),
    followed   INTEGER NOT NULL REFERENCES user (id),
    created_at INTEGER NOT NULL,
    mutual     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (follower, followed),
    CHECK (follower <> followed)
) WITHOUT ROWID;
-- followings of X in API order: mutual first, newest edge first, user id ascending
CREATE INDEX follow_followings ON follow (follower, mutual DESC, created_at DESC, followed);
-- followers of X in API order
CREATE INDEX follow_followers ON follow (followed, mutual DESC, created_at DESC, follower);

-- Indexes `hearth import` dropped to load an empty table in key order and build them
-- once at the end. The import rebuilds them when it ends, however it ends; if it never
-- did (the process was killed), the next open of the database does.
CREATE TABLE dropped_index (
    name TEXT PRIMARY KEY,
    sql  TEXT NOT NULL
);

-- OAuth applications (SPEC §4). redirect_uris: one URI per line.
CREATE TABLE oauth_app (
    id            INTEGER PRIMARY KEY,
    client_id     TEXT    NOT NULL UNIQUE,
    secret_hash   BLOB    NOT NULL,
    name          TEXT    NOT NULL,
    description   TEXT    NOT NULL DEFAULT '',
    image         TEXT    NOT NULL DEFAULT '',
    grant_type    TEXT    NOT NULL CHECK (grant_type = 'authorization-code' OR grant_type = 'implicit' OR grant_type = 'password'),
    client_type   TEXT    NOT NULL CHECK (client_type IN ('confidential', 'public')),
    skip_consent  INTEGER NOT NULL DEFAULT 0,
    redirect_uris TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL
);

-- One authorization of one user for one app: every token issued from one code or one
-- password grant (and all their refreshes) shares a grant, so that reuse of a code or of
-- a rotated refresh token can revoke the whole family.
CREATE TABLE oauth_grant (
    id         INTEGER PRIMARY KEY,
    app_id     INTEGER NOT NULL REFERENCES oauth_app (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES user (id),
    scope      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    revoked    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX oauth_grant_app ON oauth_grant (app_id);
CREATE INDEX oauth_grant_user ON oauth_grant (user_id);

CREATE TABLE oauth_code (
    hash                  BLOB    PRIMARY KEY,
    app_id                INTEGER NOT NULL REFERENCES oauth_app (id) ON DELETE CASCADE,
    user_id               INTEGER NOT NULL REFERENCES user (id),
    redirect_uri          TEXT    NOT NULL,
    scope                 TEXT    NOT NULL,
    code_challenge        TEXT,
    code_challenge_method TEXT    CHECK (code_challenge_method IN ('S256', 'plain')),
    expires_at            INTEGER NOT NULL,
    grant_id              INTEGER REFERENCES oauth_grant (id) ON DELETE CASCADE, -- set when exchanged
    used_at               INTEGER
) WITHOUT ROWID;
CREATE INDEX oauth_code_app ON oauth_code (app_id);

CREATE TABLE oauth_access_token (
    hash       BLOB    PRIMARY KEY,
    grant_id   INTEGER NOT NULL REFERENCES oauth_grant (id) ON DELETE CASCADE,
    scope      TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    revoked    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX oauth_access_token_grant ON oauth_access_token (grant_id);

CREATE TABLE oauth_refresh_token (
    hash        BLOB    PRIMARY KEY,
    grant_id    INTEGER NOT NULL REFERENCES oauth_grant (id) ON DELETE CASCADE,
    access_hash BLOB    NOT NULL,                          -- the access token issued with it
    scope       TEXT    NOT NULL,
    expires_at  INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    rotated_at  INTEGER,                                   -- set when exchanged (rotation)
    revoked     INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX oauth_refresh_token_grant ON oauth_refresh_token (grant_id);

-- Browser login sessions for /oauth/authorize/ (cookie value hashed).
CREATE TABLE login_session (
    hash       BLOB    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES user (id),
    csrf       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX login_session_user ON login_session (user_id);

-- JWT shared secrets: the row with the highest id is current; older rows are accepted
-- until their grace_until.
CREATE TABLE jwt_secret (
    id          INTEGER PRIMARY KEY,
    secret      TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    grace_until INTEGER
);

CREATE TABLE revoked_jti (
    jti        TEXT    PRIMARY KEY,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE reaction (
    id        INTEGER PRIMARY KEY,
    label     TEXT    NOT NULL,
    sentiment INTEGER NOT NULL,
    image     TEXT,                                       -- NULL: hearth's default image
    active    INTEGER NOT NULL DEFAULT 1,
    label_key TEXT    NOT NULL DEFAULT ''                 -- lowercased label (db::reactions::label_key)
);
-- labels are unique case-insensitively (Unicode lowercase, as usernames; SQLite's NOCASE
-- folds ASCII only). Schema version 2; the key columns come last because version 2
-- added them to existing files with ALTER TABLE.
CREATE UNIQUE INDEX reaction_label_key ON reaction (label_key);

-- Dynamic preferences; value is the JSON encoding of a value of `kind`.
CREATE TABLE preference (
    id      INTEGER PRIMARY KEY,
    section TEXT NOT NULL,
    name    TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind = 'boolean' OR kind = 'integer' OR kind = 'string'),
    value   TEXT NOT NULL,
    UNIQUE (section, name)
);

CREATE TABLE category (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL,
    slug         TEXT    NOT NULL UNIQUE,
    active       INTEGER NOT NULL DEFAULT 1,
    deleted      INTEGER NOT NULL DEFAULT 0,
    "order"      INTEGER NOT NULL DEFAULT 0,
    image_medium TEXT    NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    name_key     TEXT    NOT NULL DEFAULT '',             -- lowercased name (db::categories::name_key)
    followers_counter INTEGER NOT NULL DEFAULT 0          -- live users following it (version 3)
);
-- names and slugs are unique case-insensitively (slugs are ASCII, so NOCASE is exact)
CREATE UNIQUE INDEX category_name_key ON category (name_key);
CREATE UNIQUE INDEX category_slug_nocase ON category (slug COLLATE NOCASE);

-- Discussions, posts, statuses and comments share one table: each kind numbers its own
-- ids (the API's ids), `pk` is internal. Comments point at the contribution they belong
-- to (`target_pk`) and optionally at a parent comment.
CREATE TABLE contribution (
    pk             INTEGER PRIMARY KEY,
    kind           TEXT    NOT NULL CHECK (kind = 'discussion' OR kind = 'post' OR kind = 'status' OR kind = 'comment'),
    id             INTEGER NOT NULL,
    author_id      INTEGER NOT NULL REFERENCES user (id),
    title          TEXT,
    action         TEXT,
    text           TEXT    NOT NULL DEFAULT '',
    added_at       INTEGER NOT NULL,
    last_edited_at INTEGER,
    deleted        INTEGER NOT NULL DEFAULT 0,
    comment_count  INTEGER NOT NULL DEFAULT 0,
    target_pk      INTEGER REFERENCES contribution (pk),
    parent_pk      INTEGER REFERENCES contribution (pk),
    -- the text's rich-text forms (SPEC §5, version 8), rendered once when it is written
    -- (src/model/rich_text.rs): sanitized HTML, the plain-text summary and its HTML
    -- (summary_html empty when not truncated: it is then html, kept once)
    html              TEXT    NOT NULL DEFAULT '',
    summary           TEXT    NOT NULL DEFAULT '',
    summary_html      TEXT    NOT NULL DEFAULT '',
    summary_truncated INTEGER NOT NULL DEFAULT 0,
    -- the later of added_at and its newest live comment (a comment: its newest live
    -- reply), kept by the contribution_activity triggers (version 9): the feeds' order
    last_activity_at  INTEGER NOT NULL DEFAULT 0,
    -- hidden by a moderator for a reason (SPEC §10 People, version 9): shown collapsed
    collapsed         INTEGER NOT NULL DEFAULT 0,
    -- the group a discussion or post was made in (SPEC §10 Groups, version 10): its
    -- members alone see it when the group is private (db::groups::ITEM_SHOWN)
    group_id          INTEGER REFERENCES community_group (id),
    -- the event a discussion or post was made in (version 10): like group_id
    -- (db::events::item_shown); an item is in one group, one event or neither
    event_id          INTEGER REFERENCES event (id),
    -- 1 when the item is addressed to tags (a comment: when its item is), kept by the
    -- contribution_addressed triggers (version 12): db::tags::addressing_shown reads it
    -- rather than look up the addressing of every row a feed walks
    addressed         INTEGER NOT NULL DEFAULT 0,
    -- the members following it (contribution_follow), kept by its triggers (version 12)
    follower_count    INTEGER NOT NULL DEFAULT 0,
    -- the live items that share it (a `share` media_item they show), kept by the
    -- contribution_media triggers (version 14)
    share_count       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (kind, id)
);
-- lists: newest first per kind, live items only
CREATE INDEX contribution_list ON contribution (kind, deleted, added_at DESC, id DESC);
-- comments of one contribution, newest first
CREATE INDEX contribution_comments ON contribution (target_pk, deleted, added_at DESC) WHERE target_pk IS NOT NULL;
CREATE INDEX contribution_author ON contribution (author_id, kind, deleted);
-- a comment's replies, in either order (version 8)
CREATE INDEX contribution_replies ON contribution (parent_pk, deleted, added_at) WHERE parent_pk IS NOT NULL;
-- the top-level comments of one contribution (parent_pk IS NULL), in either order (version 8)
CREATE INDEX contribution_threads ON contribution (target_pk, parent_pk, deleted, added_at) WHERE target_pk IS NOT NULL;

-- Live items of each kind (version 5), kept exact by the triggers: the lists' totals
-- (src/db/contribution_tally.rs).
CREATE TABLE contribution_tally (
    kind TEXT PRIMARY KEY,
    live INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER contribution_tally_insert AFTER INSERT ON contribution
WHEN NEW.deleted = 0
BEGIN
    INSERT INTO contribution_tally (kind, live) VALUES (NEW.kind, 1)
    ON CONFLICT (kind) DO UPDATE SET live = live + 1;
END;
CREATE TRIGGER contribution_tally_delete AFTER DELETE ON contribution
WHEN OLD.deleted = 0
BEGIN
    UPDATE contribution_tally SET live = live - 1 WHERE kind = OLD.kind;
END;
CREATE TRIGGER contribution_tally_update AFTER UPDATE OF deleted ON contribution
WHEN (OLD.deleted = 0) <> (NEW.deleted = 0)
BEGIN
    INSERT INTO contribution_tally (kind, live)
    VALUES (NEW.kind, CASE WHEN NEW.deleted = 0 THEN 1 ELSE -1 END)
    ON CONFLICT (kind) DO UPDATE SET live = live + excluded.live;
END;

CREATE TABLE contribution_category (
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk) ON DELETE CASCADE,
    category_id     INTEGER NOT NULL REFERENCES category (id),
    -- the item's last_activity_at, copied by the contribution_activity triggers (version 9)
    last_activity_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (contribution_pk, category_id)
) WITHOUT ROWID;
-- a category's items, newest written first (version 8): related items
CREATE INDEX contribution_category_items ON contribution_category (category_id, contribution_pk);

-- Votes (SPEC §8): a reaction one user applied to one contribution; one vote per user
-- and item, its reaction replaceable. Schema version 3.
CREATE TABLE vote (
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk) ON DELETE CASCADE,
    user_id         INTEGER NOT NULL REFERENCES user (id),
    reaction_id     INTEGER NOT NULL REFERENCES reaction (id),
    voted_at        INTEGER NOT NULL,
    PRIMARY KEY (contribution_pk, user_id)
) WITHOUT ROWID;
-- the vote list, newest first, all reactions or one
CREATE INDEX vote_newest ON vote (contribution_pk, voted_at DESC, user_id);
CREATE INDEX vote_reaction ON vote (contribution_pk, reaction_id, voted_at DESC, user_id);
-- a user's votes (deleting the user takes them out of the tallies)
CREATE INDEX vote_user ON vote (user_id);

-- How many live users voted each item with each reaction: what `vote_count` and
-- `reactions_count` are read from, kept exact by the code that changes votes.
CREATE TABLE vote_tally (
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk) ON DELETE CASCADE,
    reaction_id     INTEGER NOT NULL REFERENCES reaction (id),
    n               INTEGER NOT NULL,
    PRIMARY KEY (contribution_pk, reaction_id)
) WITHOUT ROWID;

-- A user following a category (SPEC §8). Counted in user.categories_counter and, for
-- live users, in category.followers_counter.
CREATE TABLE category_follow (
    user_id     INTEGER NOT NULL REFERENCES user (id),
    category_id INTEGER NOT NULL REFERENCES category (id),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (user_id, category_id)
) WITHOUT ROWID;
CREATE INDEX category_follow_category ON category_follow (category_id, user_id);
-- a category's followers, the most recent first (version 8)
CREATE INDEX category_follow_newest ON category_follow (category_id, created_at DESC, user_id);

-- A user hiding another (SPEC §8): the hidden user's contributions leave the hider's
-- lists.
CREATE TABLE user_hide (
    user_id    INTEGER NOT NULL REFERENCES user (id),
    hidden_id  INTEGER NOT NULL REFERENCES user (id),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, hidden_id),
    CHECK (user_id <> hidden_id)
) WITHOUT ROWID;

-- Per-user settings the front-end keeps (SPEC §8); a setting without a row has its
-- default (model::settings).
CREATE TABLE user_setting (
    user_id INTEGER NOT NULL REFERENCES user (id),
    name    TEXT    NOT NULL,
    value   INTEGER NOT NULL,
    PRIMARY KEY (user_id, name)
) WITHOUT ROWID;

-- Images (course squares, ...) stored in the database and served under /media/.
CREATE TABLE media (
    path         TEXT    PRIMARY KEY,                      -- e.g. course/12/3-600.png
    content_type TEXT    NOT NULL,
    body         BLOB    NOT NULL,
    created_at   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE course (
    id                               INTEGER PRIMARY KEY,
    name                             TEXT    NOT NULL,
    name_key                         TEXT    NOT NULL UNIQUE, -- lowercased name: unique case-insensitively
    slug                             TEXT    NOT NULL UNIQUE,
    description                      TEXT    NOT NULL DEFAULT '',
    type                             TEXT    NOT NULL CHECK (type = 'self-paced' OR type = 'structured' OR type = 'scheduled'),
    privacy                          TEXT    NOT NULL DEFAULT '' CHECK (privacy = '' OR privacy = 'open' OR privacy = 'private' OR privacy = 'secret'),
    enforce_lessons_order            INTEGER NOT NULL DEFAULT 0,
    new_comment_notification_enabled INTEGER NOT NULL DEFAULT 1,
    hide_member_count                INTEGER NOT NULL DEFAULT 0,
    meta_title                       TEXT    NOT NULL DEFAULT '',
    meta_description                 TEXT    NOT NULL DEFAULT '',
    og_title                         TEXT    NOT NULL DEFAULT '',
    og_description                   TEXT    NOT NULL DEFAULT '',
    og_image                         TEXT    NOT NULL DEFAULT '',
    sections_order                   TEXT    NOT NULL DEFAULT '[]', -- JSON array of section ids
    image_key                        TEXT,                          -- media path prefix; NULL = default image
    deleted                          INTEGER NOT NULL DEFAULT 0,
    created_at                       INTEGER NOT NULL,
    created_by                       INTEGER NOT NULL REFERENCES user (id),
    category_ids                     TEXT    NOT NULL DEFAULT '[]'  -- JSON array of course_category's ids (below)
);
CREATE INDEX course_visible ON course (deleted, privacy, id);

-- Courses everyone may see (not deleted; open or private), in id order: the common
-- course search (no text, no category, by id) walks this instead of the whole table.
CREATE INDEX course_listed ON course (id) WHERE deleted = 0 AND privacy IN ('open', 'private');

-- How many listed courses each block of 1024 ids holds, kept exact by the triggers
-- below: a deep page of the search finds its first row by walking blocks instead of
-- stepping over every row before it.
CREATE TABLE course_listed_block (
    block INTEGER PRIMARY KEY,                             -- id >> 10
    n     INTEGER NOT NULL
);
-- How many listed courses there are (version 6; one row, kept by the same triggers):
-- the search's count, which summed ~1000 blocks at a million courses.
CREATE TABLE course_listed_count (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    n   INTEGER NOT NULL
);
INSERT INTO course_listed_count (one, n) VALUES (1, 0);
CREATE TRIGGER course_listed_insert AFTER INSERT ON course
WHEN NEW.deleted = 0 AND NEW.privacy IN ('open', 'private')
BEGIN
    INSERT INTO course_listed_block (block, n) VALUES (NEW.id >> 10, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
    UPDATE course_listed_count SET n = n + 1;
END;
CREATE TRIGGER course_listed_delete AFTER DELETE ON course
WHEN OLD.deleted = 0 AND OLD.privacy IN ('open', 'private')
BEGIN
    UPDATE course_listed_block SET n = n - 1 WHERE block = OLD.id >> 10;
    UPDATE course_listed_count SET n = n - 1;
END;
CREATE TRIGGER course_listed_update AFTER UPDATE OF deleted, privacy ON course
WHEN (OLD.deleted = 0 AND OLD.privacy IN ('open', 'private')) <> (NEW.deleted = 0 AND NEW.privacy IN ('open', 'private'))
BEGIN
    INSERT INTO course_listed_block (block, n)
    VALUES (NEW.id >> 10, CASE WHEN NEW.deleted = 0 AND NEW.privacy IN ('open', 'private') THEN 1 ELSE -1 END)
    ON CONFLICT (block) DO UPDATE SET n = n + excluded.n;
    UPDATE course_listed_count
    SET n = n + CASE WHEN NEW.deleted = 0 AND NEW.privacy IN ('open', 'private') THEN 1 ELSE -1 END;
END;
CREATE INDEX course_created_by ON course (created_by);

CREATE TABLE course_category (
    course_id   INTEGER NOT NULL REFERENCES course (id) ON DELETE CASCADE,
    category_id INTEGER NOT NULL REFERENCES category (id),
    PRIMARY KEY (course_id, category_id)
) WITHOUT ROWID;
CREATE INDEX course_category_category ON course_category (category_id, course_id);

-- course.category_ids: the course's category ids ascending, as a JSON array, written by
-- db::courses::add_categories in one UPDATE after the links change (not by a trigger a
-- link: a course given 1000 categories would recompute the array 1000 times, SPEC §2's
-- lists must stay linear); `hearth check` compares it with the links. A course's JSON
-- reads the ids with the course row instead of descending course_category, a page of
-- its own in a file larger than the page cache (issue 17); the link table stays the
-- index of a category's courses.

CREATE TABLE course_member (
    course_id   INTEGER NOT NULL REFERENCES course (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL REFERENCES user (id),
    join_status TEXT    NOT NULL CHECK (join_status = 'creator' OR join_status = 'manager' OR join_status = 'joined' OR join_status = 'invited' OR join_status = 'requested'),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (course_id, user_id)
) WITHOUT ROWID;
CREATE INDEX course_member_user ON course_member (user_id, join_status, course_id);
CREATE INDEX course_member_status ON course_member (course_id, join_status, created_at);

CREATE TABLE course_section (
    id            INTEGER PRIMARY KEY,
    course_id     INTEGER NOT NULL REFERENCES course (id) ON DELETE CASCADE,
    name          TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    lessons_order TEXT    NOT NULL DEFAULT '[]' -- JSON array of lesson ids (version 13)
);
CREATE INDEX course_section_course ON course_section (course_id);

-- A lesson (version 13 gave it everything after created_at): `html` is `text` through
-- model::rich_text, rendered when written; only `published` lessons reach the course's
-- members (and its counts), drafts only its creator and managers.
CREATE TABLE course_lesson (
    id               INTEGER PRIMARY KEY,
    section_id       INTEGER NOT NULL REFERENCES course_section (id) ON DELETE CASCADE,
    name             TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    type             TEXT    NOT NULL DEFAULT 'lesson' CHECK (type = 'lesson' OR type = 'quiz'),
    status           TEXT    NOT NULL DEFAULT 'draft' CHECK (status = 'draft' OR status = 'published'),
    comments_enabled INTEGER NOT NULL DEFAULT 1,
    text             TEXT    NOT NULL DEFAULT '',
    html             TEXT    NOT NULL DEFAULT '',
    created_by       INTEGER REFERENCES user (id),
    comment_count    INTEGER NOT NULL DEFAULT 0 -- its comments, kept by triggers (version 13)
);
CREATE INDEX course_lesson_section ON course_lesson (section_id, status); -- status: version 13

CREATE TABLE course_lesson_completion (
    lesson_id    INTEGER NOT NULL REFERENCES course_lesson (id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES user (id),
    completed_at INTEGER NOT NULL,
    PRIMARY KEY (lesson_id, user_id)
) WITHOUT ROWID;

-- The replication position (SPEC §9): one row, bumped by every write transaction
-- (`db::position`), so it travels with the data through Litestream. The primary
-- answers `X-Hearth-Position`; a read replica compares it with its own copy's.
CREATE TABLE hearth_position (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL
);
INSERT INTO hearth_position (id, position) VALUES (1, 0);

-- Custom menus (SPEC §10, version 8): the links of the kit's footer, kept by staff with
-- `hearth menu`; three menus (base, not_logged, user), empty until staff add items.
CREATE TABLE custom_menu (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE custom_menu_item (
    id          INTEGER PRIMARY KEY,
    custom_menu INTEGER NOT NULL REFERENCES custom_menu (id) ON DELETE CASCADE,
    label       TEXT    NOT NULL,
    url         TEXT    NOT NULL,
    position    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX custom_menu_item_order ON custom_menu_item (custom_menu, position, id);

-- Feeds and search (SPEC §10, version 9: from this line to the version 10 heading, as
-- migration 9 makes them; src/db/feed/, src/db/search/).
--
-- The feeds walk live top-level items by last activity, newest first: every item
-- (explore), one author's (a profile, and each followed user in the home feed's merge),
-- one category's (a category, each followed category in the merge). A page reads its
-- own rows: the indexes are in the feeds' order, and a deleted item leaves the first two.
CREATE INDEX contribution_feed ON contribution (last_activity_at DESC, pk DESC) WHERE target_pk IS NULL AND deleted = 0;
CREATE INDEX contribution_author_feed ON contribution (author_id, last_activity_at DESC, pk DESC) WHERE target_pk IS NULL AND deleted = 0;
CREATE INDEX contribution_category_feed ON contribution_category (category_id, last_activity_at DESC, contribution_pk DESC);

-- the users most followed first (the suggestions of whom to follow)
CREATE INDEX user_popular ON user (followers_counter DESC, id) WHERE deleted = 0;

-- last_activity_at, kept in the transaction of every write that moves it, for the API
-- and the importer alike: a live comment moves its item and the comment it answers
-- forward; deleting or restoring a comment puts them at their newest live comment; an
-- item's categories copy its value.
CREATE TRIGGER contribution_activity_comment AFTER INSERT ON contribution
WHEN NEW.target_pk IS NOT NULL AND NEW.deleted = 0
BEGIN
    UPDATE contribution SET last_activity_at = NEW.added_at
    WHERE pk IN (NEW.target_pk, NEW.parent_pk) AND last_activity_at < NEW.added_at;
END;
CREATE TRIGGER contribution_activity_deleted AFTER UPDATE OF deleted ON contribution
WHEN NEW.target_pk IS NOT NULL AND (OLD.deleted = 0) <> (NEW.deleted = 0)
BEGIN
    UPDATE contribution SET last_activity_at = max(added_at, coalesce(
        (SELECT max(r.added_at) FROM contribution r WHERE r.target_pk = NEW.target_pk AND r.deleted = 0), 0))
    WHERE pk = NEW.target_pk;
    UPDATE contribution SET last_activity_at = max(added_at, coalesce(
        (SELECT max(r.added_at) FROM contribution r WHERE r.parent_pk = NEW.parent_pk AND r.deleted = 0), 0))
    WHERE pk = NEW.parent_pk;
END;
CREATE TRIGGER contribution_activity_category AFTER UPDATE OF last_activity_at ON contribution
BEGIN
    UPDATE contribution_category SET last_activity_at = NEW.last_activity_at
    WHERE contribution_pk = NEW.pk;
END;

-- What a user has seen of the feeds (`POST /api/v2/feed/read/`): an item is seen when
-- its mark is at or after its last activity.
CREATE TABLE feed_seen (
    user_id         INTEGER NOT NULL REFERENCES user (id),
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk) ON DELETE CASCADE,
    seen_at         INTEGER NOT NULL,
    PRIMARY KEY (user_id, contribution_pk)
) WITHOUT ROWID;

-- Full-text search (SQLite FTS5): accents folded, any script, prefix indexes for the
-- autocomplete's first letters. The rowid is the row's own key (user.id, contribution.pk,
-- category.id). Users and categories are kept by the triggers below; an item is put in
-- by src/db/search/ (its plain text comes from the rich-text renderer) in the
-- transaction that writes or restores it, and taken out by the triggers below when it
-- is deleted. `hearth check` compares each index with its rows.
CREATE VIRTUAL TABLE search_user USING fts5 (username, real_name, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
CREATE VIRTUAL TABLE search_item USING fts5 (title, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
CREATE VIRTUAL TABLE search_category USING fts5 (name, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');

CREATE TRIGGER search_user_insert AFTER INSERT ON user WHEN NEW.deleted = 0
BEGIN
    INSERT INTO search_user (rowid, username, real_name) VALUES (NEW.id, NEW.username, NEW.real_name);
END;
CREATE TRIGGER search_user_update AFTER UPDATE OF username, real_name, deleted ON user
BEGIN
    DELETE FROM search_user WHERE rowid = OLD.id;
    INSERT INTO search_user (rowid, username, real_name)
    SELECT NEW.id, NEW.username, NEW.real_name WHERE NEW.deleted = 0;
END;
CREATE TRIGGER search_user_delete AFTER DELETE ON user
BEGIN
    DELETE FROM search_user WHERE rowid = OLD.id;
END;
CREATE TRIGGER search_category_insert AFTER INSERT ON category WHEN NEW.deleted = 0 AND NEW.active = 1
BEGIN
    INSERT INTO search_category (rowid, name) VALUES (NEW.id, NEW.name);
END;
CREATE TRIGGER search_category_update AFTER UPDATE OF name, deleted, active ON category
BEGIN
    DELETE FROM search_category WHERE rowid = OLD.id;
    INSERT INTO search_category (rowid, name) SELECT NEW.id, NEW.name WHERE NEW.deleted = 0 AND NEW.active = 1;
END;
CREATE TRIGGER search_category_delete AFTER DELETE ON category
BEGIN
    DELETE FROM search_category WHERE rowid = OLD.id;
END;
CREATE TRIGGER search_item_deleted AFTER UPDATE OF deleted ON contribution
WHEN NEW.deleted <> 0 AND NEW.target_pk IS NULL
BEGIN
    DELETE FROM search_item WHERE rowid = NEW.pk;
END;
CREATE TRIGGER search_item_delete AFTER DELETE ON contribution WHEN OLD.target_pk IS NULL
BEGIN
    DELETE FROM search_item WHERE rowid = OLD.pk;
END;

-- Notifications (SPEC §10): written in the transaction of the event that causes them
-- (a comment, a reply, a mention, a vote, a follow), never to the actor, never to a
-- user who hides the actor; taken out when the cause is undone (an unvote, an unfollow,
-- a deleted comment or item). `type` is the kit's SCNotificationTypologyType; `item_pk`
-- the discussion, post or status it is about, `comment_pk` the comment, when one is.
-- user.unseen_notifications counts a user's `is_new` rows, kept by the triggers below.
CREATE TABLE notification (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES user (id),
    type       TEXT    NOT NULL,
    actor_id   INTEGER NOT NULL REFERENCES user (id),
    item_pk    INTEGER REFERENCES contribution (pk) ON DELETE CASCADE,
    comment_pk INTEGER REFERENCES contribution (pk) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    is_new     INTEGER NOT NULL DEFAULT 1,
    message_id INTEGER REFERENCES private_message (id),  -- a private message's (version 10)
    -- the group an invitation, request or acceptance is about (version 10)
    group_id   INTEGER REFERENCES community_group (id),
    -- the event an invitation, request or acceptance is about (version 10)
    event_id   INTEGER REFERENCES event (id),
    -- the course an invitation, request, acceptance or lesson comment is about, and
    -- the lesson comment (version 13)
    course_id  INTEGER REFERENCES course (id),
    lesson_comment_id INTEGER REFERENCES course_lesson_comment (id) ON DELETE CASCADE
);
-- a user's notifications, newest first
CREATE INDEX notification_user ON notification (user_id, id DESC);
-- what an undone cause takes out
CREATE INDEX notification_item ON notification (item_pk) WHERE item_pk IS NOT NULL;
CREATE INDEX notification_comment ON notification (comment_pk) WHERE comment_pk IS NOT NULL;
CREATE INDEX notification_actor ON notification (actor_id, type, user_id);

CREATE TRIGGER notification_unseen_insert AFTER INSERT ON notification WHEN NEW.is_new
BEGIN
    UPDATE user SET unseen_notifications = unseen_notifications + 1 WHERE id = NEW.user_id;
END;
CREATE TRIGGER notification_unseen_delete AFTER DELETE ON notification WHEN OLD.is_new
BEGIN
    UPDATE user SET unseen_notifications = unseen_notifications - 1 WHERE id = OLD.user_id;
END;
CREATE TRIGGER notification_unseen_update AFTER UPDATE OF is_new ON notification
WHEN OLD.is_new <> NEW.is_new
BEGIN
    UPDATE user SET unseen_notifications = unseen_notifications + (CASE WHEN NEW.is_new THEN 1 ELSE -1 END)
    WHERE id = NEW.user_id;
END;

-- Broadcast banners (SPEC §10, `hearth banner`): staff's messages to every member, and
-- each member's view and dismissal of them.
CREATE TABLE banner (
    id               INTEGER PRIMARY KEY,
    title            TEXT    NOT NULL,
    body_text        TEXT    NOT NULL DEFAULT '',
    link             TEXT    NOT NULL DEFAULT '',
    link_text        TEXT    NOT NULL DEFAULT '',
    open_in_new_tab  INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL
);
CREATE TABLE banner_state (
    user_id     INTEGER NOT NULL REFERENCES user (id),
    banner_id   INTEGER NOT NULL REFERENCES banner (id) ON DELETE CASCADE,
    viewed_at   INTEGER,
    disposed_at INTEGER,
    PRIMARY KEY (user_id, banner_id)
) WITHOUT ROWID;

-- Connections (SPEC §10 People: friendship, on while configurations.connection_enabled):
-- a request from one user to another, then a connection both ways once accepted. A
-- request the receiver rejected stays (its sender is not told) until cancelled or
-- accepted. A connection is two rows, one per side, so a user's list is one index walk.
-- The user counters are kept by the triggers below; `hearth check` recounts them.
CREATE TABLE connection_request (
    id          INTEGER PRIMARY KEY,
    from_user   INTEGER NOT NULL REFERENCES user (id),
    to_user     INTEGER NOT NULL REFERENCES user (id),
    created_at  INTEGER NOT NULL,
    rejected_at INTEGER,
    viewed_at   INTEGER,
    UNIQUE (from_user, to_user),
    CHECK (from_user <> to_user)
);
-- the requests a user received, newest first (the rejected ones, few, are skipped)
CREATE INDEX connection_request_received ON connection_request (to_user, id DESC);
-- (the requests a user sent, newest first: the UNIQUE index leads with from_user)
CREATE INDEX connection_request_sent ON connection_request (from_user, id DESC);
CREATE TABLE connection (
    user_id    INTEGER NOT NULL REFERENCES user (id),
    other_id   INTEGER NOT NULL REFERENCES user (id),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, other_id),
    CHECK (user_id <> other_id)
) WITHOUT ROWID;
-- a user's connections, newest first
CREATE INDEX connection_list ON connection (user_id, created_at DESC, other_id);

CREATE TRIGGER connection_insert AFTER INSERT ON connection
BEGIN
    UPDATE user SET connections_counter = connections_counter + 1 WHERE id = NEW.user_id;
END;
CREATE TRIGGER connection_delete AFTER DELETE ON connection
BEGIN
    UPDATE user SET connections_counter = connections_counter - 1 WHERE id = OLD.user_id;
END;
CREATE TRIGGER connection_request_insert AFTER INSERT ON connection_request
BEGIN
    UPDATE user SET connection_requests_sent_counter = connection_requests_sent_counter + 1 WHERE id = NEW.from_user;
    UPDATE user SET connection_requests_received_counter = connection_requests_received_counter + 1
    WHERE id = NEW.to_user AND NEW.rejected_at IS NULL;
END;
CREATE TRIGGER connection_request_delete AFTER DELETE ON connection_request
BEGIN
    UPDATE user SET connection_requests_sent_counter = connection_requests_sent_counter - 1 WHERE id = OLD.from_user;
    UPDATE user SET connection_requests_received_counter = connection_requests_received_counter - 1
    WHERE id = OLD.to_user AND OLD.rejected_at IS NULL;
END;
CREATE TRIGGER connection_request_rejected AFTER UPDATE OF rejected_at ON connection_request
WHEN (OLD.rejected_at IS NULL) <> (NEW.rejected_at IS NULL)
BEGIN
    UPDATE user SET connection_requests_received_counter = connection_requests_received_counter
        + (CASE WHEN NEW.rejected_at IS NULL THEN 1 ELSE -1 END)
    WHERE id = NEW.to_user;
END;

-- A member's uploaded avatars (SPEC §10 People, `/api/v2/user/avatar/`): the kit lists
-- them and makes one primary. The primary's media path is `user.avatar`, which User JSON
-- shows; each image is a 400-pixel square in `media` under `avatar/<user>/`.
CREATE TABLE user_avatar (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES user (id),
    path       TEXT    NOT NULL,                       -- the media path, e.g. /media/avatar/1/5-x.jpg
    created_at INTEGER NOT NULL
);
-- a member's avatars, in upload order
CREATE INDEX user_avatar_user ON user_avatar (user_id, id);

-- Flags and moderation (SPEC §10 People). A member flags a contribution with one of the
-- kit's five reasons (0 spam, 1 aggressive, 2 vulgar, 3 poor, 4 off-topic), once per
-- contribution. Staff decide on a flagged contribution: delete it, hide (collapse) it,
-- or ignore its flags, each for a reason; a decision undone reopens it. `moderation` holds
-- a contribution's state: when it was last flagged (the staff queue's order) and the
-- decision, if any.
CREATE TABLE flag (
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk) ON DELETE CASCADE,
    user_id         INTEGER NOT NULL REFERENCES user (id),
    flag_type       INTEGER NOT NULL CHECK (flag_type >= 0 AND flag_type <= 4),
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (contribution_pk, user_id)
) WITHOUT ROWID;
CREATE TABLE moderation (
    contribution_pk INTEGER PRIMARY KEY REFERENCES contribution (pk) ON DELETE CASCADE,
    last_flagged_at INTEGER,
    status          TEXT    NOT NULL DEFAULT 'open'
                    CHECK (status = 'open' OR status = 'ignored' OR status = 'hidden' OR status = 'deleted'),
    flag_type       INTEGER CHECK (flag_type >= 0 AND flag_type <= 4),
    moderator_id    INTEGER REFERENCES user (id),
    moderated_at    INTEGER
);
-- the staff queue: flagged contributions, the most recently flagged first
CREATE INDEX moderation_queue ON moderation (last_flagged_at DESC, contribution_pk DESC) WHERE last_flagged_at IS NOT NULL;

-- A member's data export (SPEC §10 People, `/api/v2/udp/`): the last one asked for and
-- made, a zip of JSON files and images built off the request path, kept until the next.
CREATE TABLE data_export (
    user_id       INTEGER PRIMARY KEY REFERENCES user (id),
    requested_at  INTEGER NOT NULL,
    generated_at  INTEGER,
    downloaded_at INTEGER,
    archive       BLOB
);

-- Legal pages (SPEC §10 People, `hearth legal`): staff-kept revisions of the terms
-- ("tec") and the privacy policy, each valid from a time; the newest valid revision
-- of each is what members accept (the kit's ConsentSolution), once per member and
-- revision.
CREATE TABLE legal_page (
    id           INTEGER PRIMARY KEY,
    policy       TEXT    NOT NULL CHECK (policy = 'tec' OR policy = 'privacy'),
    title        TEXT    NOT NULL,
    body         TEXT    NOT NULL,                  -- as staff wrote it
    html_body    TEXT    NOT NULL,                  -- through the rich-text sanitizer (§5)
    html_summary TEXT    NOT NULL,
    valid_from   INTEGER NOT NULL,
    valid_to     INTEGER,
    created_at   INTEGER NOT NULL
);
-- a policy's revisions, the newest valid first
CREATE INDEX legal_page_policy ON legal_page (policy, valid_from DESC, id DESC);
CREATE TABLE legal_ack (
    id              INTEGER PRIMARY KEY,
    page_id         INTEGER NOT NULL REFERENCES legal_page (id) ON DELETE CASCADE,
    user_id         INTEGER NOT NULL REFERENCES user (id),
    accepted_at     INTEGER,
    not_accepted_at INTEGER,
    UNIQUE (page_id, user_id)
);
-- a member's acknowledgements, in order
CREATE INDEX legal_ack_user ON legal_ack (user_id, id);

-- Version 10 (SPEC §10: people, groups, events, private messages): from this line to the
-- end, as migration 10 makes them. Columns that version 10 adds to older tables are in
-- their tables above, and `src/db/engine/migrate.rs` adds them with ALTER TABLE.

-- Codes that hearth mails (SPEC §10 People, src/db/account_codes.rs): a sign-up to
-- verify (the account is made only then: `username`, `email` and the `password` hash
-- wait here), a password recovery, or a new address for `user_id` (`email`). Stored as
-- the SHA-256 of the code; single use (taken by deleting the row); short-lived.
CREATE TABLE account_code (
    id           INTEGER PRIMARY KEY,
    code_hash    BLOB    NOT NULL UNIQUE,
    purpose      TEXT    NOT NULL CHECK (purpose = 'signup' OR purpose = 'recover' OR purpose = 'email'),
    user_id      INTEGER REFERENCES user (id),
    username     TEXT,
    email        TEXT    NOT NULL,
    password     TEXT,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
-- expired codes, swept as new ones are made
CREATE INDEX account_code_expiry ON account_code (expires_at);
-- a mail address's open codes (a new sign-up or recovery replaces the older ones)
CREATE INDEX account_code_email ON account_code (email COLLATE NOCASE, purpose);

-- Blocked members (SPEC §10 People, `PATCH /moderation/user/{id}/`, `hearth user
-- suspend`): the staff list, the most recently blocked first.
CREATE INDEX user_blocked ON user (blocked_at DESC, id DESC) WHERE blocked_at IS NOT NULL;
-- Private messages (SPEC §10; src/db/messages/). A thread per pair of users (`low_id` <
-- `high_id`); each message once, with what each side has hidden ("delete for me") and
-- whether its sender took it back for everyone. `pm_member` is each side's snippet: its
-- newest visible message and its unread count, kept by the writes in the message's own
-- transaction and recounted by `hearth check`.
CREATE TABLE pm_thread (
    id         INTEGER PRIMARY KEY,
    low_id     INTEGER NOT NULL REFERENCES user (id),
    high_id    INTEGER NOT NULL REFERENCES user (id),
    created_at INTEGER NOT NULL,
    CHECK (low_id < high_id),
    UNIQUE (low_id, high_id)
);
-- an uploaded file (one message's attachment), its bytes in `media` under `path` once
-- whole; `parts` are the chunks received (`pm_chunk`) until then
CREATE TABLE pm_file (
    uuid       TEXT    PRIMARY KEY,
    owner_id   INTEGER NOT NULL REFERENCES user (id),
    filename   TEXT    NOT NULL DEFAULT '',
    mimetype   TEXT    NOT NULL DEFAULT 'application/octet-stream',
    filesize   INTEGER NOT NULL DEFAULT 0,
    duration   REAL,
    path       TEXT,
    thumbnail  TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX pm_file_owner ON pm_file (owner_id, created_at);
CREATE TABLE pm_chunk (
    uuid TEXT    NOT NULL REFERENCES pm_file (uuid) ON DELETE CASCADE,
    part INTEGER NOT NULL,
    body BLOB    NOT NULL,
    PRIMARY KEY (uuid, part)
) WITHOUT ROWID;
CREATE TABLE private_message (
    id              INTEGER PRIMARY KEY,
    -- a pair thread's message (NULL: a group thread's, version 11)
    thread_id       INTEGER REFERENCES pm_thread (id),
    sender_id       INTEGER NOT NULL REFERENCES user (id),
    -- a pair message's receiver (NULL: a group thread's message, version 11)
    receiver_id     INTEGER REFERENCES user (id),
    text            TEXT    NOT NULL,
    html            TEXT    NOT NULL,
    summary         TEXT    NOT NULL,
    file_uuid       TEXT    REFERENCES pm_file (uuid),
    created_at      INTEGER NOT NULL,
    -- the receiver has read it
    is_read         INTEGER NOT NULL DEFAULT 0,
    -- taken back by its sender: shown to both as a deleted message
    withdrawn       INTEGER NOT NULL DEFAULT 0,
    sender_hidden   INTEGER NOT NULL DEFAULT 0,
    receiver_hidden INTEGER NOT NULL DEFAULT 0,
    -- a group thread's message (version 11: migration 11 rebuilds the table from this
    -- text, as SQLite cannot make `thread_id` and `receiver_id` nullable in place)
    group_id        INTEGER REFERENCES community_group (id),
    -- a message is a pair message or a group message, never both
    CHECK ((group_id IS NULL AND thread_id IS NOT NULL AND receiver_id IS NOT NULL)
        OR (group_id IS NOT NULL AND thread_id IS NULL AND receiver_id IS NULL))
);
-- a thread's messages in order: the thread read's keyset walk; the sides and their
-- hidden flags make it cover the page's visibility test without the message's row (a
-- group thread's messages have their own, private_message_group)
CREATE INDEX private_message_thread ON private_message (thread_id, id, sender_id, sender_hidden,
                                                        receiver_id, receiver_hidden)
    WHERE thread_id IS NOT NULL;
CREATE UNIQUE INDEX private_message_file ON private_message (file_uuid) WHERE file_uuid IS NOT NULL;
CREATE TABLE pm_member (
    thread_id  INTEGER NOT NULL REFERENCES pm_thread (id),
    user_id    INTEGER NOT NULL REFERENCES user (id),
    other_id   INTEGER NOT NULL REFERENCES user (id),
    -- the newest message this side sees (NULL: none, the thread is not in its snippets)
    last_id    INTEGER,
    last_at    INTEGER,
    unread     INTEGER NOT NULL DEFAULT 0,
    -- the messages this side sees (version 11): the thread read's count, kept by every
    -- write that changes it, so a page reads only its own rows
    visible    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, thread_id)
) WITHOUT ROWID;
-- a user's snippets, the most recent thread first: the snippet list's keyset walk
CREATE INDEX pm_member_recent ON pm_member (user_id, last_at DESC, thread_id DESC)
    WHERE last_id IS NOT NULL;
-- a message's notification, taken out with the message
CREATE INDEX notification_message ON notification (message_id) WHERE message_id IS NOT NULL;
-- Groups (SPEC §10 "Groups, events and private messages"). `community_group` (GROUP is
-- a keyword): public groups show everything to everyone; a private group shows its
-- feed and members to its members alone, and itself to everyone when `visible`, else
-- only to members and invited users (db::groups::VISIBLE). Memberships use the course
-- members' statuses and code (db::members): creator, manager, joined ("subscribed"),
-- invited, requested. `subscribers_counter` counts creator, managers and joined
-- members, kept by the triggers below and recounted by `hearth check`.
CREATE TABLE community_group (
    id                  INTEGER PRIMARY KEY,
    name                TEXT    NOT NULL,
    -- the name as compared for uniqueness (model::course::name_key)
    name_key            TEXT    NOT NULL UNIQUE,
    slug                TEXT    NOT NULL UNIQUE,
    description         TEXT    NOT NULL DEFAULT '',
    color               TEXT    NOT NULL DEFAULT '',
    privacy             TEXT    NOT NULL CHECK (privacy = 'public' OR privacy = 'private'),
    visible             INTEGER NOT NULL DEFAULT 1,
    -- the avatar's and the cover's media keys (db::media), NULL for the defaults
    image_key           TEXT,
    cover_key           TEXT,
    created_at          INTEGER NOT NULL,
    created_by          INTEGER NOT NULL REFERENCES user (id),
    deleted             INTEGER NOT NULL DEFAULT 0,
    subscribers_counter INTEGER NOT NULL DEFAULT 0,
    -- live top-level items made in the group: its feed's count (version 11, kept by the
    -- contribution_space_count triggers, recounted by `hearth check`)
    items_counter       INTEGER NOT NULL DEFAULT 0
);
-- the search's order (newest first) over live groups
CREATE INDEX community_group_live ON community_group (deleted, id DESC);

CREATE TABLE group_member (
    group_id    INTEGER NOT NULL REFERENCES community_group (id),
    user_id     INTEGER NOT NULL REFERENCES user (id),
    join_status TEXT    NOT NULL CHECK (join_status = 'creator' OR join_status = 'manager' OR join_status = 'joined' OR join_status = 'invited' OR join_status = 'requested'),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;
CREATE INDEX group_member_user ON group_member (user_id, join_status, group_id);
CREATE INDEX group_member_status ON group_member (group_id, join_status, created_at);

CREATE TRIGGER group_member_insert AFTER INSERT ON group_member
WHEN NEW.join_status IN ('creator', 'manager', 'joined')
BEGIN
    UPDATE community_group SET subscribers_counter = subscribers_counter + 1 WHERE id = NEW.group_id;
END;
CREATE TRIGGER group_member_delete AFTER DELETE ON group_member
WHEN OLD.join_status IN ('creator', 'manager', 'joined')
BEGIN
    UPDATE community_group SET subscribers_counter = subscribers_counter - 1 WHERE id = OLD.group_id;
END;
CREATE TRIGGER group_member_update AFTER UPDATE OF join_status ON group_member
WHEN (OLD.join_status IN ('creator', 'manager', 'joined')) <> (NEW.join_status IN ('creator', 'manager', 'joined'))
BEGIN
    UPDATE community_group
    SET subscribers_counter = subscribers_counter + CASE WHEN NEW.join_status IN ('creator', 'manager', 'joined') THEN 1 ELSE -1 END
    WHERE id = NEW.group_id;
END;

-- a group's feed: its live top-level items by last activity (db::feed, Feed::Group);
-- author_id makes it cover the feed's capped count and its hidden-authors test, which
-- otherwise read every item's row (issue 33's bench: 9 ms a page at 10x, 1 ms with it)
CREATE INDEX contribution_group_feed ON contribution (group_id, last_activity_at DESC, pk DESC, author_id)
WHERE group_id IS NOT NULL AND target_pk IS NULL AND deleted = 0;
-- live top-level items made in groups or events, per kind: what the community-wide
-- lists and feeds (which leave those items to their group's or event's feed) take off
-- contribution_tally
CREATE TABLE contribution_space_tally (
    kind TEXT PRIMARY KEY,
    live INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER contribution_space_tally_insert AFTER INSERT ON contribution
WHEN NEW.deleted = 0 AND (NEW.group_id IS NOT NULL OR NEW.event_id IS NOT NULL)
BEGIN
    INSERT INTO contribution_space_tally (kind, live) VALUES (NEW.kind, 1)
    ON CONFLICT (kind) DO UPDATE SET live = live + 1;
END;
CREATE TRIGGER contribution_space_tally_delete AFTER DELETE ON contribution
WHEN OLD.deleted = 0 AND (OLD.group_id IS NOT NULL OR OLD.event_id IS NOT NULL)
BEGIN
    UPDATE contribution_space_tally SET live = live - 1 WHERE kind = OLD.kind;
END;
CREATE TRIGGER contribution_space_tally_update AFTER UPDATE OF deleted ON contribution
WHEN (NEW.group_id IS NOT NULL OR NEW.event_id IS NOT NULL) AND (OLD.deleted = 0) <> (NEW.deleted = 0)
BEGIN
    INSERT INTO contribution_space_tally (kind, live)
    VALUES (NEW.kind, CASE WHEN NEW.deleted = 0 THEN 1 ELSE -1 END)
    ON CONFLICT (kind) DO UPDATE SET live = live + excluded.live;
END;

-- Polls (SPEC §10 People: polls on posts and poll votes; src/db/polls.rs): a
-- discussion's or post's poll, its choices in order, and who voted which choice.
-- `vote_count` and the authors' `polls_counter` are kept by the triggers below and
-- recounted by `hearth check`.
CREATE TABLE poll (
    contribution_pk  INTEGER PRIMARY KEY REFERENCES contribution (pk),
    title            TEXT    NOT NULL,
    multiple_choices INTEGER NOT NULL DEFAULT 0,
    expiration_at    INTEGER,                          -- NULL: open until closed
    closed           INTEGER NOT NULL DEFAULT 0,
    added_at         INTEGER NOT NULL
);
CREATE TABLE poll_choice (
    id              INTEGER PRIMARY KEY,
    contribution_pk INTEGER NOT NULL REFERENCES poll (contribution_pk),
    position        INTEGER NOT NULL,
    choice          TEXT    NOT NULL,
    added_at        INTEGER NOT NULL,
    vote_count      INTEGER NOT NULL DEFAULT 0
);
-- a poll's choices in order
CREATE INDEX poll_choice_poll ON poll_choice (contribution_pk, position);
CREATE TABLE poll_vote (
    choice_id       INTEGER NOT NULL REFERENCES poll_choice (id),
    user_id         INTEGER NOT NULL REFERENCES user (id),
    contribution_pk INTEGER NOT NULL REFERENCES poll (contribution_pk),
    added_at        INTEGER NOT NULL,
    PRIMARY KEY (choice_id, user_id)
) WITHOUT ROWID;
-- a member's votes in one poll (a single-choice vote replaces them)
CREATE INDEX poll_vote_user ON poll_vote (contribution_pk, user_id);
-- a choice's voters, the newest first
CREATE INDEX poll_vote_choice ON poll_vote (choice_id, added_at DESC);
CREATE TRIGGER poll_vote_insert AFTER INSERT ON poll_vote BEGIN
    UPDATE poll_choice SET vote_count = vote_count + 1 WHERE id = NEW.choice_id;
END;
CREATE TRIGGER poll_vote_delete AFTER DELETE ON poll_vote BEGIN
    UPDATE poll_choice SET vote_count = vote_count - 1 WHERE id = OLD.choice_id;
END;
CREATE TRIGGER poll_insert AFTER INSERT ON poll BEGIN
    UPDATE user SET polls_counter = polls_counter + 1
    WHERE id = (SELECT author_id FROM contribution WHERE pk = NEW.contribution_pk AND deleted = 0);
END;
CREATE TRIGGER poll_item_deleted AFTER UPDATE OF deleted ON contribution
WHEN OLD.deleted <> NEW.deleted AND EXISTS (SELECT 1 FROM poll WHERE contribution_pk = NEW.pk) BEGIN
    UPDATE user SET polls_counter = polls_counter + (CASE WHEN NEW.deleted THEN -1 ELSE 1 END)
    WHERE id = NEW.author_id;
END;

-- Events (SPEC §10 "Groups, events and private messages"). An event's times are UTC
-- seconds (`start_at`, `end_at`) and the IANA zone it was planned in (`timezone`): a
-- recurring event (`daily`, `weekly`, `monthly`, forever, as the kit offers) repeats
-- at the same wall-clock time in that zone (model::event). Privacy is the groups' rule
-- (db::members::visible_sql): a public event shows everything to everyone; a private
-- one shows its members, feed and gallery to its members alone, and itself to
-- everyone when `visible`, else only to members, invited users and requesters.
-- `show_on_feed` is the creator's hide/show switch. Memberships are the course and
-- group statuses (db::members, Roster::Event) plus the member's answer (`going`: 1
-- going, 0 not going, NULL none yet). `subscribers_counter` counts creator, managers
-- and joined members, `goings_counter` those of them going; the triggers below keep
-- both and `hearth check` recounts them.
CREATE TABLE event (
    id                  INTEGER PRIMARY KEY,
    name                TEXT    NOT NULL,
    slug                TEXT    NOT NULL UNIQUE,
    description         TEXT    NOT NULL DEFAULT '',
    color               TEXT    NOT NULL DEFAULT '',
    privacy             TEXT    NOT NULL CHECK (privacy = 'public' OR privacy = 'private'),
    visible             INTEGER NOT NULL DEFAULT 1,
    start_at            INTEGER NOT NULL,
    end_at              INTEGER NOT NULL CHECK (end_at > start_at),
    timezone            TEXT    NOT NULL DEFAULT 'UTC',
    recurring           TEXT    NOT NULL CHECK (recurring IN ('never', 'daily', 'weekly', 'monthly')),
    location            TEXT    NOT NULL CHECK (location IN ('in person', 'virtual')),
    geolocation         TEXT,
    geolocation_lat     REAL,
    geolocation_lng     REAL,
    link                TEXT,
    -- the image's media key (db::media), NULL for the default
    image_key           TEXT,
    show_on_feed        INTEGER NOT NULL DEFAULT 1,
    created_at          INTEGER NOT NULL,
    created_by          INTEGER NOT NULL REFERENCES user (id),
    deleted             INTEGER NOT NULL DEFAULT 0,
    subscribers_counter INTEGER NOT NULL DEFAULT 0,
    goings_counter      INTEGER NOT NULL DEFAULT 0,
    -- live top-level items made in the event: its feed's count (version 11, as a group's)
    items_counter       INTEGER NOT NULL DEFAULT 0,
    -- the lists' order key (version 11, db::events::order), computed in Rust at some time
    -- T (the last write of the event's times, or the job that refreshes passed keys):
    -- the first occurrence ending after T, the end of the one before it (a recurring
    -- event's, NULL for the first), and `over`: an event with no occurrence ending after
    -- T (one that does not recur and ended). 0/0: not computed yet, so stale.
    next_start          INTEGER NOT NULL DEFAULT 0,
    next_end            INTEGER NOT NULL DEFAULT 0,
    prev_end            INTEGER,
    over                INTEGER NOT NULL DEFAULT 0
);
-- the search's walk over live events, by first start; it also holds every column the
-- lists read and filter on but the name and description (db::events::page), so their
-- walk reads no event row unless the query has `search` (issue 33's bench: the walk
-- over 20,000 events took ~15 ms of SQL, ~2.5 ms with these)
CREATE INDEX event_live ON event (deleted, start_at, id, privacy, visible, show_on_feed, end_at,
                                  timezone, recurring, location, created_by);

CREATE TABLE event_member (
    event_id    INTEGER NOT NULL REFERENCES event (id),
    user_id     INTEGER NOT NULL REFERENCES user (id),
    join_status TEXT    NOT NULL CHECK (join_status = 'creator' OR join_status = 'manager' OR join_status = 'joined' OR join_status = 'invited' OR join_status = 'requested'),
    created_at  INTEGER NOT NULL,
    going       INTEGER CHECK (going IS NULL OR (going IN (0, 1) AND join_status IN ('creator', 'manager', 'joined'))),
    PRIMARY KEY (event_id, user_id)
) WITHOUT ROWID;
CREATE INDEX event_member_user ON event_member (user_id, join_status, event_id);
CREATE INDEX event_member_status ON event_member (event_id, join_status, created_at);
CREATE INDEX event_member_going ON event_member (event_id, going, created_at) WHERE going IS NOT NULL;
-- an event's feed: its live top-level items by last activity (db::feed, Feed::Event);
-- author_id covers the count and the hidden-authors test, as for a group's
CREATE INDEX contribution_event_feed ON contribution (event_id, last_activity_at DESC, pk DESC, author_id)
WHERE event_id IS NOT NULL AND target_pk IS NULL AND deleted = 0;

CREATE TRIGGER event_member_insert AFTER INSERT ON event_member
WHEN NEW.join_status IN ('creator', 'manager', 'joined')
BEGIN
    UPDATE event SET subscribers_counter = subscribers_counter + 1,
                     goings_counter = goings_counter + (NEW.going IS 1)
    WHERE id = NEW.event_id;
END;
CREATE TRIGGER event_member_delete AFTER DELETE ON event_member
WHEN OLD.join_status IN ('creator', 'manager', 'joined')
BEGIN
    UPDATE event SET subscribers_counter = subscribers_counter - 1,
                     goings_counter = goings_counter - (OLD.going IS 1)
    WHERE id = OLD.event_id;
END;
CREATE TRIGGER event_member_update AFTER UPDATE OF join_status, going ON event_member
BEGIN
    UPDATE event
    SET subscribers_counter = subscribers_counter
          + (NEW.join_status IN ('creator', 'manager', 'joined'))
          - (OLD.join_status IN ('creator', 'manager', 'joined')),
        goings_counter = goings_counter + (NEW.going IS 1) - (OLD.going IS 1)
    WHERE id = NEW.event_id;
END;

-- Tags: addressing and onboarding (version 10, issue 32) ----------------------------
-- The tags a discussion or post is addressed to (its `addressing`): only its author,
-- staff and the holders of one of them see it (db::tags::addressing_shown).
CREATE TABLE contribution_addressing (
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk),
    tag_id          INTEGER NOT NULL REFERENCES tag (id),
    PRIMARY KEY (contribution_pk, tag_id)
) WITHOUT ROWID;
CREATE INDEX contribution_addressing_tag ON contribution_addressing (tag_id);
-- who holds a tag (the tag's members; `user_tag`'s key starts with the user)
CREATE INDEX user_tag_tag ON user_tag (tag_id, user_id);

-- The community's onboarding steps (SCStepType), one row per step that staff started
-- or completed; a step without a row has not been started.
CREATE TABLE onboarding_step (
    id           INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 6),
    status       TEXT    NOT NULL CHECK (status IN ('in_progress', 'completed')),
    started_at   INTEGER NOT NULL,
    completed_at INTEGER
);

-- Media (SPEC §5 images, the kit's uploader; src/db/media_items.rs): a picture a
-- member sends in chunks (media_upload, its bytes by offset in media_chunk), made whole
-- into a media_item whose picture is in `media` (served under /media/m/...); an event's
-- gallery shows pictures its managers added (event_gallery).
CREATE TABLE media_upload (
    id         TEXT    PRIMARY KEY,
    owner_id   INTEGER NOT NULL REFERENCES user (id),
    -- bytes received so far, from offset 0 without a gap; the whole file's size
    received   INTEGER NOT NULL DEFAULT 0,
    total      INTEGER,
    created_at INTEGER NOT NULL
);
CREATE INDEX media_upload_owner ON media_upload (owner_id, created_at);
CREATE TABLE media_chunk (
    upload_id TEXT    NOT NULL REFERENCES media_upload (id) ON DELETE CASCADE,
    start     INTEGER NOT NULL,
    body      BLOB    NOT NULL,
    PRIMARY KEY (upload_id, start)
) WITHOUT ROWID;
CREATE TABLE media_item (
    id         INTEGER PRIMARY KEY,
    owner_id   INTEGER NOT NULL REFERENCES user (id),
    -- image: a picture; url: a link (version 14); share: an item shared (version 14)
    type       TEXT    NOT NULL CHECK (type IN ('image', 'url', 'share')),
    title      TEXT    NOT NULL DEFAULT '',
    -- a picture's path in `media`, its type and its size in pixels and bytes ('' and 0
    -- for a link or a share)
    path       TEXT    NOT NULL,
    mimetype   TEXT    NOT NULL,
    width      INTEGER NOT NULL,
    height     INTEGER NOT NULL,
    size       INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    -- a link's absolute http(s) URL
    url        TEXT,
    -- the discussion, post or status a share shares
    shared_pk  INTEGER REFERENCES contribution (pk),
    CHECK ((type = 'url') = (url IS NOT NULL) AND (type = 'share') = (shared_pk IS NOT NULL))
);
CREATE INDEX media_item_owner ON media_item (owner_id, id);
CREATE INDEX media_item_shared ON media_item (shared_pk) WHERE shared_pk IS NOT NULL;
CREATE TABLE event_gallery (
    event_id INTEGER NOT NULL REFERENCES event (id),
    media_id INTEGER NOT NULL REFERENCES media_item (id),
    added_at INTEGER NOT NULL,
    PRIMARY KEY (event_id, media_id)
) WITHOUT ROWID;
-- a gallery's page, newest first
CREATE INDEX event_gallery_newest ON event_gallery (event_id, added_at DESC, media_id DESC);
CREATE INDEX event_gallery_media ON event_gallery (media_id);

-- Custom advs and pages, and contact requests (SPEC §10 "Custom ADV, menus & pages",
-- "Contact us"; src/db/custom_content.rs, src/db/contact.rs). Advs and pages are kept by
-- staff (`hearth adv`, `hearth page`), none by default; their HTML (`embed_code`,
-- `html_body`) is stored sanitized. A contact request is a message to staff
-- (`hearth contact list`), plain text; its sender's account is forgotten with it.
CREATE TABLE custom_adv (
    id          INTEGER PRIMARY KEY,
    position    TEXT    NOT NULL CHECK (position IN ('BELOW_TOPBAR', 'BELOW_THE_POST', 'IN_POST_COMMENTS', 'RELATED_POSTS_COLUMN', 'TOOLS_COLUMN', 'IN_STREAM', 'ABOVE_THE_STREAM', 'ABOVE_THE_STREAM_CATEGORY')),
    title       TEXT,
    link        TEXT,
    image       TEXT,
    embed_code  TEXT,
    active      INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    category_id INTEGER REFERENCES category (id),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    CHECK (image IS NOT NULL OR embed_code IS NOT NULL)
);
-- the kit's search: a slot's active advs
CREATE INDEX custom_adv_position ON custom_adv (position, active, id);

CREATE TABLE custom_page (
    id           INTEGER PRIMARY KEY,
    slug         TEXT    NOT NULL UNIQUE,
    title        TEXT    NOT NULL,
    body         TEXT    NOT NULL,                        -- as staff wrote it
    html_body    TEXT    NOT NULL,                        -- sanitized (SPEC §5)
    html_summary TEXT    NOT NULL,
    valid_from   INTEGER NOT NULL,
    valid_to     INTEGER,
    active       INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);

CREATE TABLE contact_request (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER REFERENCES user (id) ON DELETE SET NULL,
    name       TEXT    NOT NULL,
    surname    TEXT    NOT NULL,
    email      TEXT    NOT NULL,
    message    TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
-- a member's requests (their data export; forgotten with the account)
CREATE INDEX contact_request_user ON contact_request (user_id) WHERE user_id IS NOT NULL;

-- Version 11 (issues 32 and 33): from this line to version 12's, as migration 11 makes them.
-- Columns that version 11 adds to older tables are in their tables above, and
-- `src/db/engine/migrate.rs` adds them with ALTER TABLE (V11_COLUMNS) and counts them.

-- Version 11: kept feed counts (issue 33) ------------------------------------------------
-- A group's and an event's feed count (`items_counter`): live top-level items made in
-- it, kept here as contribution_space_tally keeps the community-wide ones, so a feed's
-- page reads its own rows and the count is one row (db::feed, Feed::Group/Event).
CREATE TRIGGER contribution_space_count_insert AFTER INSERT ON contribution
WHEN NEW.deleted = 0 AND NEW.target_pk IS NULL AND (NEW.group_id IS NOT NULL OR NEW.event_id IS NOT NULL)
BEGIN
    UPDATE community_group SET items_counter = items_counter + 1 WHERE id = NEW.group_id;
    UPDATE event SET items_counter = items_counter + 1 WHERE id = NEW.event_id;
END;
CREATE TRIGGER contribution_space_count_delete AFTER DELETE ON contribution
WHEN OLD.deleted = 0 AND OLD.target_pk IS NULL AND (OLD.group_id IS NOT NULL OR OLD.event_id IS NOT NULL)
BEGIN
    UPDATE community_group SET items_counter = items_counter - 1 WHERE id = OLD.group_id;
    UPDATE event SET items_counter = items_counter - 1 WHERE id = OLD.event_id;
END;
CREATE TRIGGER contribution_space_count_update AFTER UPDATE OF deleted, group_id, event_id ON contribution
WHEN NEW.target_pk IS NULL
BEGIN
    UPDATE community_group SET items_counter = items_counter - 1
    WHERE OLD.deleted = 0 AND id = OLD.group_id;
    UPDATE event SET items_counter = items_counter - 1
    WHERE OLD.deleted = 0 AND id = OLD.event_id;
    UPDATE community_group SET items_counter = items_counter + 1
    WHERE NEW.deleted = 0 AND id = NEW.group_id;
    UPDATE event SET items_counter = items_counter + 1
    WHERE NEW.deleted = 0 AND id = NEW.event_id;
END;

-- Version 11: the events' order (issue 33) ---------------------------------------------
-- The lists of events (db::events::order) merge three walks in the lists' order, so a
-- page reads about offset + limit rows: the events to come or under way by their kept
-- next occurrence (`event_next`, keys still fresh: next_end > now), the few whose key
-- went stale since the job last moved it on (`event_stale`: next_end <= now, recomputed
-- in Rust), and the events that are over, latest end first (`event_over`). The date
-- filters that reach back before now then walk, in the same order, the recurring events
-- whose next occurrence is after their range and whose previous one ended in it
-- (`event_prev_end`).
CREATE INDEX event_next ON event (deleted, over, next_start, id, next_end, privacy, visible,
                                  show_on_feed, location, created_by, recurring, end_at);
CREATE INDEX event_stale ON event (next_end) WHERE deleted = 0 AND over = 0;
CREATE INDEX event_over ON event (deleted, end_at DESC, id, start_at, privacy, visible,
                                  show_on_feed, location, created_by) WHERE over = 1;
CREATE INDEX event_prev_end ON event (next_start, id, prev_end, next_end)
WHERE deleted = 0 AND over = 0 AND prev_end IS NOT NULL;
-- a write of an event's times that does not store its key (db::events::update does)
-- leaves it stale, so the lists recompute it rather than trust it
CREATE TRIGGER event_key_stale AFTER UPDATE OF start_at, end_at, timezone, recurring ON event
BEGIN
    UPDATE event SET next_start = 0, next_end = 0, prev_end = NULL, over = 0 WHERE id = NEW.id;
END;
-- a creator's events (the related events: db::events::list), ordered in Rust
CREATE INDEX event_creator ON event (created_by, deleted);
-- The text search of the lists (`search=`): a substring of the name or the description,
-- case-insensitively, as the lists always matched (a trigram index answers substrings of
-- 3 characters or more; a shorter text walks the events as before). Kept by the
-- triggers below for live events; `hearth check` compares it with the rows.
CREATE VIRTUAL TABLE search_event USING fts5 (name, description, tokenize = 'trigram');
CREATE TRIGGER search_event_insert AFTER INSERT ON event WHEN NEW.deleted = 0
BEGIN
    INSERT INTO search_event (rowid, name, description) VALUES (NEW.id, NEW.name, NEW.description);
END;
CREATE TRIGGER search_event_update AFTER UPDATE OF name, description, deleted ON event
BEGIN
    DELETE FROM search_event WHERE rowid = OLD.id;
    INSERT INTO search_event (rowid, name, description)
    SELECT NEW.id, NEW.name, NEW.description WHERE NEW.deleted = 0;
END;
CREATE TRIGGER search_event_delete AFTER DELETE ON event
BEGIN
    DELETE FROM search_event WHERE rowid = OLD.id;
END;

-- Version 11: group threads in private messages (issue 33) -----------------------------
-- A group's thread (db::messages::group): its messages are `private_message` rows with
-- `group_id` set, written once whatever the group's size. The head keeps the newest
-- message and how many there are; a member's marks are a row of its own, made when the
-- member first reads, hides or deletes something (a member without one has read
-- nothing and hidden nothing), so a message costs O(1) rows, never one per member.
-- What a member sees is `messages - cleared - hidden`: the thread read's count.
CREATE INDEX private_message_group ON private_message (group_id, id, sender_id, withdrawn)
    WHERE group_id IS NOT NULL;
CREATE TABLE pm_group_thread (
    group_id INTEGER PRIMARY KEY REFERENCES community_group (id),
    -- its newest message (NULL once every message was taken back without a trace)
    last_id  INTEGER,
    last_at  INTEGER,
    -- its messages (rows: one taken back without a trace is gone)
    messages INTEGER NOT NULL DEFAULT 0,
    -- messages up to this id are read for every member (an import's, `read` true)
    read_floor INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE pm_group_member (
    group_id   INTEGER NOT NULL REFERENCES community_group (id),
    user_id    INTEGER NOT NULL REFERENCES user (id),
    -- what the member has read up to (a message id)
    read_id    INTEGER NOT NULL DEFAULT 0,
    -- "delete the thread for me": messages up to this id are gone for the member
    cleared_id INTEGER NOT NULL DEFAULT 0,
    -- how many messages are at or below cleared_id
    cleared    INTEGER NOT NULL DEFAULT 0,
    -- how many above it the member hid one by one (pm_group_hidden)
    hidden     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, group_id)
) WITHOUT ROWID;
-- the members who deleted the thread for themselves past a message (a message taken
-- back without a trace leaves their `cleared` count)
CREATE INDEX pm_group_member_cleared ON pm_group_member (group_id, cleared_id);
-- a single group message a member deleted for themselves
CREATE TABLE pm_group_hidden (
    user_id    INTEGER NOT NULL REFERENCES user (id),
    group_id   INTEGER NOT NULL REFERENCES community_group (id),
    message_id INTEGER NOT NULL REFERENCES private_message (id),
    PRIMARY KEY (user_id, group_id, message_id)
) WITHOUT ROWID;
CREATE INDEX pm_group_hidden_message ON pm_group_hidden (message_id);

-- Version 11: people (issue 32) --------------------------------------------------------
-- Identities elsewhere linked to members (SCUserProviderAssociationType; src/db/
-- user_providers.rs): a social network's or an SSO system's id for the member. Staff
-- link them (`POST /user/{id}/provider/`); hearth signs nobody in through them (it has
-- no social sign-in), so they are what an integration or the profile reads. One a
-- provider per member, and an external id names one member.
CREATE TABLE user_provider (
    user_id         INTEGER NOT NULL REFERENCES user (id),
    provider        TEXT    NOT NULL,
    ext_id          TEXT    NOT NULL,
    profile_url     TEXT,
    show_in_profile INTEGER NOT NULL DEFAULT 0,
    -- a JSON object, as staff gave it
    metadata        TEXT,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (user_id, provider),
    UNIQUE (provider, ext_id)
) WITHOUT ROWID;
-- the members of an external id (`sso/signup` keeps `ext_id` one member's)
CREATE INDEX user_ext_id ON user (ext_id) WHERE ext_id IS NOT NULL;

-- Version 12 (issue 32): from this line to the end, as migration 12 makes them. ---------
-- Addressed items, marked on their rows; items whose notifications members stopped; items members follow.
-- `contribution.addressed` (above) follows the addressing rows: 1 while an item has
-- one, and a comment takes its item's when it is written and whenever the item's
-- addressing changes (an edit). Migration 12 sets it from the rows.
CREATE TRIGGER contribution_addressed_insert AFTER INSERT ON contribution_addressing
BEGIN
    UPDATE contribution SET addressed = 1
    WHERE (pk = NEW.contribution_pk OR target_pk = NEW.contribution_pk) AND addressed = 0;
END;
CREATE TRIGGER contribution_addressed_delete AFTER DELETE ON contribution_addressing
WHEN NOT EXISTS (SELECT 1 FROM contribution_addressing WHERE contribution_pk = OLD.contribution_pk)
BEGIN
    UPDATE contribution SET addressed = 0
    WHERE (pk = OLD.contribution_pk OR target_pk = OLD.contribution_pk) AND addressed = 1;
END;
CREATE TRIGGER contribution_addressed_comment AFTER INSERT ON contribution
WHEN NEW.target_pk IS NOT NULL
BEGIN
    UPDATE contribution SET addressed = (SELECT t.addressed FROM contribution t WHERE t.pk = NEW.target_pk)
    WHERE pk = NEW.pk;
END;

-- The items a member stopped hearing about (the kit's "Stop notifications for this
-- contribution", `POST /api/v2/{type}/{id}/suspend/`; db::notification_offs): no
-- notification about the item reaches them until they turn it back on.
CREATE TABLE contribution_notification_off (
    user_id         INTEGER NOT NULL REFERENCES user (id),
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk),
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (user_id, contribution_pk)
) WITHOUT ROWID;

-- Members following an item (the kit's bookmark button on a card, `POST /api/v2/{type}/
-- {id}/follow/`; db::item_follows): a follower is told of new comments on it.
-- `contribution.follower_count` counts them, kept by the triggers below; a member's
-- follows end with their account.
CREATE TABLE contribution_follow (
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk),
    user_id         INTEGER NOT NULL REFERENCES user (id),
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (contribution_pk, user_id)
) WITHOUT ROWID;
CREATE INDEX contribution_follow_user ON contribution_follow (user_id);
CREATE TRIGGER contribution_follow_insert AFTER INSERT ON contribution_follow
BEGIN
    UPDATE contribution SET follower_count = follower_count + 1 WHERE pk = NEW.contribution_pk;
END;
CREATE TRIGGER contribution_follow_delete AFTER DELETE ON contribution_follow
BEGIN
    UPDATE contribution SET follower_count = follower_count - 1 WHERE pk = OLD.contribution_pk;
END;

-- Version 13 (course lessons): from this line to the end, as migration 13 makes them. ------
-- Comments on a lesson (`…/lesson/{id}/comment/`; db::lesson_comments): flat (no
-- replies), hard-deleted. `course_id` is the lesson's course, kept on the row so that
-- the course's comment list (the teacher's dashboard) is one index range.
CREATE TABLE course_lesson_comment (
    id         INTEGER PRIMARY KEY,
    lesson_id  INTEGER NOT NULL REFERENCES course_lesson (id) ON DELETE CASCADE,
    course_id  INTEGER NOT NULL REFERENCES course (id) ON DELETE CASCADE,
    text       TEXT    NOT NULL,
    html       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    created_by INTEGER NOT NULL REFERENCES user (id),
    updated_at INTEGER
);
CREATE INDEX course_lesson_comment_lesson ON course_lesson_comment (lesson_id, id);
CREATE INDEX course_lesson_comment_course ON course_lesson_comment (course_id, id);
-- A member's completed lessons: their progress in a course (the dashboard's list, the
-- outline) reads their completions, not every lesson of the course.
CREATE INDEX course_lesson_completion_user ON course_lesson_completion (user_id, lesson_id);
-- what a lesson comment's deletion takes out (its managers' notifications)
CREATE INDEX notification_lesson_comment ON notification (lesson_comment_id)
    WHERE lesson_comment_id IS NOT NULL;
CREATE TRIGGER course_lesson_comment_insert AFTER INSERT ON course_lesson_comment
BEGIN
    UPDATE course_lesson SET comment_count = comment_count + 1 WHERE id = NEW.lesson_id;
END;
CREATE TRIGGER course_lesson_comment_delete AFTER DELETE ON course_lesson_comment
BEGIN
    UPDATE course_lesson SET comment_count = comment_count - 1 WHERE id = OLD.lesson_id;
END;

-- The preferences' version: every change to them bumps it (the triggers below, whoever
-- writes: the API or `hearth pref set` in another process). What a server keeps of the
-- preferences it reads on every request (db::preferences::Latest: /user/me/'s
-- permission) is good while the version it was read at is the one in this row.
CREATE TABLE preference_version (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    n   INTEGER NOT NULL
);
INSERT INTO preference_version (one, n) VALUES (1, 0);
CREATE TRIGGER preference_version_insert AFTER INSERT ON preference
BEGIN
    UPDATE preference_version SET n = n + 1;
END;
CREATE TRIGGER preference_version_update AFTER UPDATE ON preference
BEGIN
    UPDATE preference_version SET n = n + 1;
END;
CREATE TRIGGER preference_version_delete AFTER DELETE ON preference
BEGIN
    UPDATE preference_version SET n = n + 1;
END;

-- Version 14 (pictures in posts): the media a discussion or a post shows (`medias`, in
-- the order its author gave; src/db/media_items.rs): pictures, links and a share. A
-- media is its owner's and shows in one item at most; it is seen by those who see the
-- item. `contribution.share_count` counts the live items whose media share an item.
CREATE TABLE contribution_media (
    contribution_pk INTEGER NOT NULL REFERENCES contribution (pk),
    position        INTEGER NOT NULL,
    media_id        INTEGER NOT NULL UNIQUE REFERENCES media_item (id),
    PRIMARY KEY (contribution_pk, position)
) WITHOUT ROWID;
CREATE TRIGGER contribution_media_share_insert AFTER INSERT ON contribution_media
BEGIN
    UPDATE contribution SET share_count = share_count + 1
    WHERE pk = (SELECT shared_pk FROM media_item WHERE id = NEW.media_id)
      AND (SELECT deleted FROM contribution WHERE pk = NEW.contribution_pk) = 0;
END;
CREATE TRIGGER contribution_media_share_delete AFTER DELETE ON contribution_media
BEGIN
    UPDATE contribution SET share_count = share_count - 1
    WHERE pk = (SELECT shared_pk FROM media_item WHERE id = OLD.media_id)
      AND (SELECT deleted FROM contribution WHERE pk = OLD.contribution_pk) = 0;
END;
CREATE TRIGGER contribution_share_deleted AFTER UPDATE OF deleted ON contribution
WHEN OLD.deleted <> NEW.deleted
BEGIN
    UPDATE contribution SET share_count = share_count + (CASE WHEN NEW.deleted THEN -1 ELSE 1 END)
    WHERE pk IN (SELECT m.shared_pk FROM contribution_media cm JOIN media_item m ON m.id = cm.media_id
                 WHERE cm.contribution_pk = NEW.pk AND m.shared_pk IS NOT NULL);
END;
