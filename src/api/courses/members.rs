//! Course membership: join, leave, status, invitations, requests, roles, member lists.

use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::outline::Outline;
use super::{MemberStatuses, course_json, managed_course, member_statuses, visible_course};
use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::members::{UserIds, admins, missing_user, pre_write, required_users, user_list};
use crate::clock::Timestamp;
use crate::db::members::{self, Roster};
use crate::db::notifications::{Type, forget_course, forget_managed, notify_course};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, ok};
use crate::model::course::{JoinStatus, MemberJson, Privacy};
use crate::model::field::FieldError;

/// The endpoints of this module. `GET invite/` (the invited users) is not in SPEC: the
/// SDK's `getCourseInvitedUsers` calls it.
pub fn endpoints() -> Vec<Endpoint> {
    const JOIN: &str = "/api/v2/course/{id}/join/";
    const INVITE: &str = "/api/v2/course/{id}/invite/";
    vec![
        user(Method::GET, JOIN, "listCourseMembers", |c| list(c, None)).list::<MemberStatuses>(),
        write(Method::POST, JOIN, "joinCourse", join_course),
        write(Method::DELETE, JOIN, "leaveCourse", leave),
        ca(Method::GET, "/api/v2/course/{id}/status/", "getCourseJoinStatus", get_status),
        user(Method::GET, INVITE, "listCourseInvitedUsers", |c| list(c, Some(JoinStatus::Invited)))
            .paged(),
        write(Method::POST, INVITE, "inviteCourseUsers", |c| invite_users(c, true))
            .body::<UserIds>(),
        write(Method::DELETE, INVITE, "withdrawCourseInvitations", |c| invite_users(c, false))
            .body::<UserIds>(),
        user(Method::GET, "/api/v2/course/{id}/request_join/", "listCourseJoinRequests", |c| {
            list(c, Some(JoinStatus::Requested))
        })
        .paged(),
        write(Method::POST, "/api/v2/course/{id}/role/", "changeCourseRoles", set_roles)
            .body::<Roles>(),
    ]
}

/// `POST /api/v2/course/{id}/join/`: open → joined; private → requested (an invited
/// user joins); secret → joined for an invited user (others do not see it: 404).
/// Members and managers keep their status. 200 with the course as its page shows it
/// (`?view=user`, with its `sections`): the kit's course page puts the answer in place
/// of the course it shows.
async fn join_course(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let (id, now, base) = (call.id(), call.now, call.base());
    call.no_body().await?;
    let json = call
        .write(move |tx, who| {
            let (course, status) = visible_course(tx, id, Some(who))?;
            let next = match (status, course.privacy) {
                (Some(JoinStatus::Creator | JoinStatus::Manager | JoinStatus::Joined), _) => None,
                (Some(JoinStatus::Invited), _) => Some(JoinStatus::Joined),
                (_, Privacy::Open) => Some(JoinStatus::Joined),
                (Some(JoinStatus::Requested), _) => None,
                (None, Privacy::Private) => Some(JoinStatus::Requested),
                // a draft or a secret course the caller manages or was invited to is
                // handled above; anything else is invisible and already 404
                _ => return Err(ApiError::NotFound),
            };
            let status = match next {
                Some(s) => {
                    members::set(tx, Roster::Course, id, who.user_id, s, now)?;
                    // an invitation answered, or a request made: the managers are told
                    let tell = if status == Some(JoinStatus::Invited) {
                        forget_course(tx, id, Type::CourseInvite, Some(who.user_id), None)?;
                        Some(Type::CourseAccept)
                    } else if status == Some(JoinStatus::Requested) {
                        // a requester joining a course made open since: the request is moot
                        forget_course(tx, id, Type::CourseRequest, None, Some(who.user_id))?;
                        None
                    } else {
                        (s == JoinStatus::Requested).then_some(Type::CourseRequest)
                    };
                    if let Some(kind) = tell {
                        notify_managers(tx, id, who.user_id, kind, None, now)?;
                    }
                    Some(s)
                }
                None => status,
            };
            let mut json = course_json(tx, &course, Some(who.user_id), status, &base)?;
            json.sections = Some(Outline::read(tx, &course, status, Some(who.user_id))?.json());
            Ok(json)
        })
        .await?;
    Ok(ok(&json))
}

/// Notifies the creator and managers of course `id` (the actor excepted) of `kind`
/// (about lesson comment `comment`, when given).
pub(super) fn notify_managers(
    tx: &rusqlite::Connection,
    id: i64,
    actor: i64,
    kind: Type,
    comment: Option<i64>,
    now: Timestamp,
) -> Result<(), ApiError> {
    for manager in admins(tx, Roster::Course, id)? {
        notify_course(tx, manager, actor, kind, (id, comment), now)?;
    }
    Ok(())
}

/// `DELETE /api/v2/course/{id}/join/`: leave, withdraw a request or decline an
/// invitation; 204 (also when the caller had no status). The creator cannot leave.
async fn leave(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let id = call.id();
    call.no_body().await?;
    call.write(move |tx, who| {
        let (_, status) = visible_course(tx, id, Some(who))?;
        if status == Some(JoinStatus::Creator) {
            return Err(ApiError::PermissionDenied);
        }
        members::remove(tx, Roster::Course, id, who.user_id)?;
        // a request taken back, an invitation declined: its notification goes; a
        // manager leaving loses what they were told as one
        match status {
            Some(JoinStatus::Manager) => forget_managed(tx, id, who.user_id)?,
            Some(JoinStatus::Requested) => {
                forget_course(tx, id, Type::CourseRequest, None, Some(who.user_id))?;
            }
            Some(JoinStatus::Invited) => {
                forget_course(tx, id, Type::CourseInvite, Some(who.user_id), None)?;
            }
            _ => {}
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/course/{id}/status/` (CA) → `{"status": join_status or null}`.
async fn get_status(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let (_, status) = visible_course(c, id, who)?;
            Ok::<_, ApiError>(serde_json::json!({ "status": status }))
        })
        .await?;
    Ok(ok(&json))
}

/// The member list (`join/`, `statuses` filter), or the users of one fixed status
/// (`request_join/`: requested; `invite/`: invited): creator and managers only.
async fn list(call: Call<Principal>, fixed: Option<JoinStatus>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        managed_course(c, id, who)?;
        let statuses = if let Some(f) = fixed { vec![f] } else { member_statuses(q)? };
        let page = Page::from_query(q)?;
        let (count, rows) =
            members::list(c, Roster::Course, id, &statuses, page.limit, page.offset)?;
        let results: Vec<MemberJson> = rows
            .into_iter()
            .map(|(u, s)| MemberJson { user: u.minimal(&base), join_status: s })
            .collect();
        Ok((page, count, results))
    })
    .await
}

/// `POST /api/v2/course/{id}/invite/` (invite; accept requests) and `DELETE` (withdraw
/// invitations) with `{"users": [ids]}`. 204.
async fn invite_users(mut call: Call<Principal>, add: bool) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    let (UserIds { users }, errors) = UserIds::parse(&call.object().await?);
    call.write(move |tx, who| {
        managed_course(tx, id, who)?;
        let users = required_users(tx, users, errors, "users")?;
        if add {
            // the invited are told, and so are requesters accepted (their request's
            // notification goes)
            for (u, s) in members::invite(tx, Roster::Course, id, &users, now)? {
                let kind = if s == JoinStatus::Invited {
                    Type::CourseInvite
                } else {
                    forget_course(tx, id, Type::CourseRequest, None, Some(u))?;
                    Type::CourseAdded
                };
                notify_course(tx, u, who.user_id, kind, (id, None), now)?;
            }
        } else {
            members::withdraw(tx, Roster::Course, id, &users)?;
            for u in &users {
                forget_course(tx, id, Type::CourseInvite, Some(*u), None)?;
            }
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// A role body: members who become managers, plain members, or leave. Each list holds
/// user ids (integers or numeric strings), at most 1000 (400 max_length); a user who is
/// no member, or the creator, is 400 on that list. Unknown fields are ignored.
#[derive(Debug, Default, utoipa::ToSchema)]
#[schema(as = CourseRoles)]
struct Roles {
    /// Members who become managers.
    #[schema(max_items = 1000, nullable = false)]
    managers: Option<Vec<i64>>,
    /// Members who become plain members.
    #[schema(max_items = 1000, nullable = false)]
    joined: Option<Vec<i64>>,
    /// Members who leave the course.
    #[schema(max_items = 1000, nullable = false)]
    unjoined: Option<Vec<i64>>,
}

impl Roles {
    /// Reads the three lists, in this order; every error at once.
    fn parse(body: &serde_json::Map<String, serde_json::Value>) -> (Roles, Vec<FieldError>) {
        let mut e = Vec::new();
        let managers = user_list(body, "managers", &mut e);
        let joined = user_list(body, "joined", &mut e);
        let unjoined = user_list(body, "unjoined", &mut e);
        (Roles { managers, joined, unjoined }, e)
    }

    /// The lists given, each with its field and the status it gives (None: leave).
    fn lists(self) -> Vec<(&'static str, Option<JoinStatus>, Vec<i64>)> {
        [
            ("managers", Some(JoinStatus::Manager), self.managers),
            ("joined", Some(JoinStatus::Joined), self.joined),
            ("unjoined", None, self.unjoined),
        ]
        .into_iter()
        .filter_map(|(field, to, users)| users.map(|u| (field, to, u)))
        .collect()
    }
}

/// `POST /api/v2/course/{id}/role/` `{"managers": [ids], "joined": [ids], "unjoined":
/// [ids]}`: members become managers, plain members, or leave. 204.
async fn set_roles(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    let (roles, errors) = Roles::parse(&call.object().await?);
    let lists = roles.lists();
    call.write(move |tx, who| {
        managed_course(tx, id, who)?;
        let mut errors = errors;
        let mut changes: Vec<(i64, Option<JoinStatus>)> = Vec::new();
        let any = lists.iter().any(|(_, _, users)| !users.is_empty());
        for (field, to, users) in &lists {
            if let Some(e) = missing_user(tx, users, field)? {
                errors.push(e);
                continue;
            }
            let statuses = members::statuses(tx, Roster::Course, id, users)?;
            for u in users {
                match statuses.get(u) {
                    Some(JoinStatus::Creator) => {
                        errors.push(FieldError::new(
                            *field,
                            "invalid",
                            "The creator's status cannot change.",
                        ));
                        break;
                    }
                    Some(JoinStatus::Manager | JoinStatus::Joined) => changes.push((*u, *to)),
                    _ => {
                        errors.push(FieldError::new(
                            *field,
                            "invalid",
                            format!("User {u} is not a member of this course."),
                        ));
                        break;
                    }
                }
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Invalid(errors));
        }
        if !any {
            return Err(ApiError::field(
                "non_field_errors",
                "required",
                "Give at least one user in managers, joined or unjoined.",
            ));
        }
        let before = members::statuses(
            tx,
            Roster::Course,
            id,
            &changes.iter().map(|(u, _)| *u).collect::<Vec<_>>(),
        )?;
        for (u, to) in changes {
            match to {
                Some(s) => {
                    members::set(tx, Roster::Course, id, u, s, now)?;
                    // a member made a manager is told; a manager no more loses what
                    // they were told as one
                    let was_manager = before.get(&u) == Some(&JoinStatus::Manager);
                    if s == JoinStatus::Manager && !was_manager {
                        notify_course(tx, u, who.user_id, Type::CourseManager, (id, None), now)?;
                    } else if s != JoinStatus::Manager && was_manager {
                        forget_managed(tx, id, u)?;
                    }
                }
                None => {
                    members::remove(tx, Roster::Course, id, u)?;
                    forget_managed(tx, id, u)?;
                }
            }
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every documented list of a role body is read.
    #[test]
    fn every_documented_role_list_is_read() {
        let unread = crate::model::field::unread_properties::<Roles>(|m| Roles::parse(m).1);
        assert!(unread.is_empty(), "{unread:?}");
    }
}
